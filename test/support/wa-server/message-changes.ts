/**
 * What people do to messages already in a chat, as a phone sends it (test code): edits, deletions for
 * everyone, reactions, polls and poll votes. Each builder answers the `proto.Message` and the stanza
 * attributes the live service delivers with it; the client reads them in node_modules/baileys/lib:
 *
 * - **Edit**: `protocolMessage{type: MESSAGE_EDIT, key, editedMessage, timestampMs}` (the shape the
 *   library builds for `{text, edit: key}`, Utils/messages.js generateWAMessageContent), wrapped by
 *   phones in `editedMessage{message}` (a FutureProofMessage; whatsmeow send.go BuildEdit), which the
 *   client unwraps (Utils/messages.js normalizeMessageContent) and turns into a `messages.update`
 *   (Utils/process-message.js, MESSAGE_EDIT). Stanza attribute `edit="1"` (Socket/messages-send.js
 *   sendMessage sets it on edits).
 * - **Delete for everyone**: `protocolMessage{type: REVOKE, key}` (Utils/messages.js, `{delete: key}`),
 *   stanza `edit="7"` (Socket/messages-send.js; `8` is an admin deleting another's group message).
 * - **Reaction**: `reactionMessage{key, text, senderTimestampMs}`; `text: ''` removes it (WA Web,
 *   Utils/messages.js `{react}`); stanza `type="reaction"` (Socket/messages-send.js getMessageType). The
 *   key is the reactor's view of the message: `fromMe` is whether the reactor wrote it; the client
 *   flips it to its own view (Utils/process-message.js cleanMessage normaliseKey).
 * - **Poll**: `pollCreationMessage{name, options, selectableOptionsCount}` (V3 when one choice) with a
 *   32-byte `messageContextInfo.messageSecret` (Utils/messages.js `{poll}`); stanza `type="poll"` and a
 *   `<meta polltype="creation"/>` child on the sender's side (Socket/messages-send.js).
 * - **Poll vote**: `pollUpdateMessage{pollCreationMessageKey, vote: {encPayload, encIv},
 *   senderTimestampMs}`, the vote a `PollVoteMessage{selectedOptions: sha256(option name)…}` under
 *   AES-GCM with the key Utils/process-message.js decryptPollVote derives: HMAC-SHA256 of
 *   `pollId ‖ pollCreatorJid ‖ voterJid ‖ "Poll Vote" ‖ 0x01` keyed by HMAC-SHA256(messageSecret, 32
 *   zero bytes), AAD `pollId \0 voterJid`. The JIDs are those the voter's phone addresses the chat by:
 *   LIDs in a LID-addressed chat (zapo PR #230 "peers address us by LID in pollCreationMessageKey"; the
 *   same mismatch is whatsmeow PR #1069), phone numbers otherwise. Stanza `type="poll"`.
 */
import { createHash, randomBytes } from 'node:crypto'
import { aesEncryptGCM, hmacSign, proto } from 'baileys'

/** The key of the message a change is about, from the changer's side (`fromMe`: the changer wrote it). */
export interface TargetKey {
  /** The chat as the changer's phone names it (the other party's JID). */
  remoteJid: string
  id: string
  fromMe: boolean
}

/** A message and the attributes its stanza carries. */
export interface PhoneMessage {
  message: proto.IMessage
  attrs: Record<string, string>
}

/** An edit of one's own message to `text`. */
export function editOf(key: TargetKey, text: string, now = Date.now()): PhoneMessage {
  return {
    message: {
      editedMessage: {
        message: { protocolMessage: { key, type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, editedMessage: { conversation: text }, timestampMs: now } }
      }
    },
    attrs: { edit: '1' }
  }
}

/** A deletion for everyone of one's own message. */
export function revokeOf(key: TargetKey): PhoneMessage {
  return { message: { protocolMessage: { key, type: proto.Message.ProtocolMessage.Type.REVOKE } }, attrs: { edit: '7' } }
}

/** A reaction `emoji` on a message; `''` takes the reaction back. */
export function reactionOf(key: TargetKey, emoji: string, now = Date.now()): PhoneMessage {
  return { message: { reactionMessage: { key, text: emoji, senderTimestampMs: now } }, attrs: { type: 'reaction' } }
}

/** A poll with a fresh message secret; answers it with the secret. */
export function pollOf(name: string, options: string[], selectable = 0): PhoneMessage & { secret: Buffer } {
  const secret = randomBytes(32)
  const creation = { name, options: options.map((optionName) => ({ optionName })), selectableOptionsCount: selectable }
  return {
    message: { ...(selectable === 1 ? { pollCreationMessageV3: creation } : { pollCreationMessage: creation }), messageContextInfo: { messageSecret: secret } },
    attrs: { type: 'poll' },
    secret
  }
}

/** A poll the voter votes on: its id, secret and who created it (the JID the voter's phone names the creator by). */
export interface VotedPoll {
  key: TargetKey
  secret: Uint8Array
  creatorJid: string
}

/** A vote for `chosen` (option names; none withdraws the vote) by `voterJid`. */
export function voteOf(poll: VotedPoll, voterJid: string, chosen: string[], now = Date.now()): PhoneMessage {
  const vote = proto.Message.PollVoteMessage.encode({ selectedOptions: chosen.map((name) => createHash('sha256').update(name).digest()) }).finish()
  const sign = Buffer.concat([Buffer.from(poll.key.id), Buffer.from(poll.creatorJid), Buffer.from(voterJid), Buffer.from('Poll Vote'), Buffer.from([1])])
  const key = hmacSign(sign, hmacSign(poll.secret, new Uint8Array(32), 'sha256'), 'sha256')
  const iv = randomBytes(12)
  const encPayload = aesEncryptGCM(vote, key, iv, Buffer.from(`${poll.key.id}\u0000${voterJid}`))
  return {
    message: { pollUpdateMessage: { pollCreationMessageKey: poll.key, vote: { encPayload, encIv: iv }, senderTimestampMs: now } },
    attrs: { type: 'poll' }
  }
}
