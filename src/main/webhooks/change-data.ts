/**
 * The `data` of the webhook events of a change to a logged message (docs/design.md §11): what changed
 * and the message as it now stands. Pure.
 *
 * - onMessageEdit: the entry (its new `text`, `edited` with the earlier texts) and `previousText`;
 * - onMessageDelete: the entry as kept (no text or media, `deleted: {at, by}`);
 * - onMessageReaction: `{messageId, chatId, by, fromMe, emoji ('' = removed), at, username?, message}`;
 * - onPollVote: `{pollId, chatId, by, fromMe, selected, at, username?, poll, message}`.
 */
import type { CoreEvents } from '../events'
import { actorOf } from '../services/messages/message-changes'

export function changeData({ message, change, previousText }: CoreEvents['messageChanged']): Record<string, unknown> {
  const at = change.timestamp * 1000
  const who = { chatId: message.chatId, by: actorOf(change), fromMe: change.fromMe, at, ...(change.username ? { username: change.username } : {}) }
  switch (change.kind) {
    case 'edit':
      return { ...message, previousText: previousText ?? null }
    case 'delete':
      return { ...message }
    case 'reaction':
      return { messageId: message.id, ...who, emoji: change.emoji, message }
    case 'poll_vote':
      return { pollId: message.id, ...who, selected: change.selected, poll: message.poll, message }
  }
}
