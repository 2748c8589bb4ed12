/**
 * Older messages from the phone (docs/baileys.md "History from the phone"): the most one request asks
 * for, and what a request asks for when it names no count. The phone answers an on-demand history
 * request with at most 50 messages (automagik-dev/omni #1121: never more, whatever was asked), the
 * count WhatsApp Web asks for and Baileys' own example uses (PR #919).
 */
export const HISTORY_FETCH_MAX = 50
