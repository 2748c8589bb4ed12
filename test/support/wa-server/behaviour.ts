/**
 * How the protocol test server behaves where the live WhatsApp service changed or fails (test code).
 * Each knob models one observed behaviour of the live service, cited; the defaults are the live
 * service as of late 2026 (a knob that would break a healthy client is off by default). Tests flip
 * them through `server.behaviour` (mutable) and the control API (`PUT /control/behaviour`).
 */

export interface ServerBehaviour {
  /**
   * QR pairing since 2026-07-28 (WhiskeySockets/Baileys #2737, PR #2765): after the phone's first
   * scan of a registration's QR, the server retires the QR's adv secret and sends
   * `<notification type="companion_reg_refresh">` to the companion; the phone reports "Couldn't
   * link device". The companion must generate a new 32-byte secret and re-render the current ref;
   * a QR still carrying a retired secret is refused again. Default on (the live service).
   */
  qrRefreshOnScan: boolean
  /** Child of the refresh notification: WA Web accepts `companion_reg_refresh` or `pair-device-rotate-qr`. */
  qrRefreshChild: 'companion_reg_refresh' | 'pair-device-rotate-qr'
  /**
   * Also send a `companion_reg_refresh` once a pairing-code stage 2 ran (the client's
   * `companion_finish` arrived), just before `pair-success` (whatsapp-rust PR #1163: a client that
   * rotates its adv secret then breaks the pending pair-success HMAC). Default off.
   */
  refreshAfterStage2: boolean
  /**
   * Close codes to answer the next logins with instead of `<success>` (one popped per login, as
   * `<stream:error code>`): e.g. five 500s in a row. Default none.
   */
  loginStreamErrors: number[]
  /** Drop every logged-in connection this many ms after `<success>` (a flapping server). Default off. */
  dropAfterLoginMs: number | null
  /** Contacts answer each message they decrypt with a delivery receipt, as phones do. Default on. */
  deliveryReceipts: boolean
  /**
   * The account's privacy setting "Read receipts" as the `privacy` query answers it
   * (`<category name="readreceipts" value="all|none"/>`, lib/Socket/chats.js fetchPrivacySettings).
   * `all` (WhatsApp's default): the client's read receipts are `type="read"` and reach the contact;
   * `none`: the client sends `read-self`, which only the account's own devices get
   * (lib/Socket/messages-send.js readMessages). Default `all`.
   */
  readReceipts: 'all' | 'none'
  /**
   * One-to-one chats that moved to LID (Baileys #2683): once a contact's messages reach an account
   * LID-addressed (`from=<lid>@lid`, the contact's `addressing` is `lid` or `lid-only`), the server
   * refuses what that account's client sends the contact's phone-number JID with `<ack error="463">`
   * and delivers nothing; the same message to `<lid>@lid` is delivered. Sends before that (a first
   * message to a number) are accepted, as the report says ("accepted initially but later rejected").
   * Default on.
   */
  refusePnInLidChat: boolean
  /**
   * Privacy tokens (trusted-contact tokens, "tctoken"): a contact's phone, after its first message to
   * an account, issues that account a token (WA Web `WAWebSendTcTokenChatAction`; Baileys' own
   * fire-and-forget `issuePrivacyTokens` after a send, lib/Socket/messages-send.js), and the server
   * passes it to the account's linked client as `<notification type="privacy_token" from=<contact>
   * [sender_lid]><tokens><token jid=<account> t type="trusted_contact">bytes</token></tokens>`
   * (WA Web `WAWebHandlePrivacyTokensNotification` → `WAWebSetTcTokenChatAction.handleIncomingTcToken`;
   * lib/Socket/messages-recv.js handlePrivacyTokenNotification). A contact with `requiresToken` refuses
   * messages without that token (463). Default on.
   */
  privacyTokens: boolean
  /**
   * A `status@broadcast` message in the offline backlog that the client answers with a NACK
   * (`<ack class="message" error="…">`) stays pending: the server re-delivers it first at every login
   * and withholds the rest of the backlog (and `<ib><offline>`), and messages that arrive meanwhile
   * queue behind it (Baileys PR #2779, observed on a live account: "one pending status stalls the
   * entire offline queue"). A plain ack or a receipt lets the rest through. Default on.
   */
  statusNackHoldsOfflineQueue: boolean
  /**
   * The phone answers its linked device's on-demand history request (Baileys `fetchMessageHistory`,
   * a peer data operation `HISTORY_SYNC_ON_DEMAND`) with an ON_DEMAND history sync of the chat's
   * older messages it holds (history.ts). Off: the phone does not answer (Baileys #2452 reports
   * phones that never do) until `phone.answerHistoryRequests()` (a slow phone). Default on.
   */
  answerHistoryRequests: boolean
}

export const LIVE_BEHAVIOUR: ServerBehaviour = {
  qrRefreshOnScan: true,
  qrRefreshChild: 'companion_reg_refresh',
  refreshAfterStage2: false,
  loginStreamErrors: [],
  dropAfterLoginMs: null,
  deliveryReceipts: true,
  readReceipts: 'all',
  refusePnInLidChat: true,
  privacyTokens: true,
  statusNackHoldsOfflineQueue: true,
  answerHistoryRequests: true
}

/** The knobs with `patch` applied; throws on an unknown knob or a wrong type (control API input). */
export function patchBehaviour(current: ServerBehaviour, patch: Record<string, unknown>): ServerBehaviour {
  const next = { ...current }
  for (const [key, value] of Object.entries(patch)) {
    if (!(key in LIVE_BEHAVIOUR)) throw new Error(`unknown behaviour ${key}`)
    const k = key as keyof ServerBehaviour
    const expected = LIVE_BEHAVIOUR[k]
    const ok =
      k === 'dropAfterLoginMs'
        ? value === null || typeof value === 'number'
        : Array.isArray(expected)
          ? Array.isArray(value) && value.every((v) => typeof v === 'number')
          : k === 'readReceipts'
            ? value === 'all' || value === 'none'
            : typeof value === typeof expected
    if (!ok) throw new Error(`behaviour ${key} has the wrong type`)
    ;(next as Record<string, unknown>)[k] = Array.isArray(value) ? [...value] : value
  }
  return next
}
