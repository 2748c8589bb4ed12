/**
 * Edits, deletions for everyone, reactions and poll votes as they arrive in `messages.upsert`
 * (docs/baileys.md "Edits, deletions, reactions and polls"). Baileys 7.0.0-rc14 upserts them like any
 * message and then reports the first three again as `messages.update` / `messages.reaction`
 * (lib/Utils/process-message.js); the product reads them from the upsert, so a change is applied in
 * the same order as the messages around it (an edit right after its message). Pure, except
 * {@link decryptVote}'s crypto.
 *
 * - Edit: `protocolMessage{type: MESSAGE_EDIT, key, editedMessage}`, also wrapped in `editedMessage`
 *   (unwrapped by `normalizeMessageContent`, lib/Utils/messages.js);
 * - deletion for everyone: `protocolMessage{type: REVOKE, key}`;
 * - reaction: `reactionMessage{key, text}` (`''` removes it); its key was turned to our point of view
 *   by the library (lib/Utils/process-message.js cleanMessage);
 * - poll vote: `pollUpdateMessage{pollCreationMessageKey, vote}`, encrypted with the poll's
 *   `messageSecret`. rc14 no longer decrypts votes itself (the code is commented out in
 *   process-message.js), so {@link decryptVote} does, with the library's `decryptPollVote`, and names
 *   the chosen options with its `getAggregateVotesInPollMessage` (lib/Utils/messages.js).
 */
import { decryptPollVote, getAggregateVotesInPollMessage, getContentType, normalizeMessageContent, proto, type WAMessage } from 'baileys'
import type { MessageChange } from '../types'
import { authorOf, stripDevice, toSeconds } from './inbound-mapper'

/** An encrypted poll vote, waiting for its poll to be looked up ({@link decryptVote}). */
export interface PendingVote {
  kind: 'pending_vote'
  change: Omit<Extract<MessageChange, { kind: 'poll_vote' }>, 'selected'>
  /** The poll as the voter named it (our point of view, lib/Utils/process-message.js cleanMessage). */
  pollKey: { id: string; fromMe: boolean; remoteJid?: string; participant?: string }
  vote: { encPayload: Uint8Array; encIv: Uint8Array }
  /** Every JID the voter may have signed with: the sender's forms. */
  voterJids: string[]
}

/** The change `msg` carries, a vote still to decrypt, or null when it is none of them. */
export function toMessageChange(msg: WAMessage, ctx: { offline: boolean; nowSeconds: number }): MessageChange | PendingVote | null {
  const content = normalizeMessageContent(msg.message)
  const author = authorOf(msg)
  const changeId = msg.key?.id
  if (!content || !author || !changeId) return null
  const base = { ...author, changeId, timestamp: toSeconds(msg.messageTimestamp) || ctx.nowSeconds, offline: ctx.offline }
  const kind = getContentType(content)
  if (kind === 'protocolMessage') {
    const p = content.protocolMessage
    const id = p?.key?.id
    if (!p || !id) return null
    if (p.type === proto.Message.ProtocolMessage.Type.REVOKE) return { ...base, kind: 'delete', id }
    if (p.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) {
      const edited = p.editedMessage ? normalizeMessageContent(p.editedMessage) : undefined
      const text = edited ? editedText(edited) : undefined
      if (text === undefined) return null
      const at = toSeconds(p.timestampMs)
      return { ...base, ...(at ? { timestamp: Math.floor(at / 1000) } : {}), kind: 'edit', id, text }
    }
    return null
  }
  if (kind === 'reactionMessage') {
    const r = content.reactionMessage
    const id = r?.key?.id
    if (!r || !id) return null
    return { ...base, kind: 'reaction', id, emoji: r.text ?? '' }
  }
  if (kind === 'pollUpdateMessage') {
    const u = content.pollUpdateMessage
    const key = u?.pollCreationMessageKey
    if (!u?.vote?.encPayload || !u.vote.encIv || !key?.id) return null
    const voterJids = [author.senderId, author.senderPn, author.senderLid].filter((j): j is string => Boolean(j))
    return {
      kind: 'pending_vote',
      change: { ...base, kind: 'poll_vote', id: key.id },
      pollKey: { id: key.id, fromMe: Boolean(key.fromMe), ...(key.remoteJid ? { remoteJid: key.remoteJid } : {}), ...(key.participant ? { participant: key.participant } : {}) },
      vote: { encPayload: u.vote.encPayload, encIv: u.vote.encIv },
      voterJids: [...new Set(voterJids)]
    }
  }
  return null
}

/** The text of an edited message's new content (a caption for media), or undefined when it has none. */
function editedText(m: proto.IMessage): string | undefined {
  if (typeof m.conversation === 'string') return m.conversation
  if (m.extendedTextMessage) return m.extendedTextMessage.text ?? ''
  const captioned = m.imageMessage ?? m.videoMessage ?? m.documentMessage
  return captioned ? (captioned.caption ?? '') : undefined
}

/**
 * The option names a vote chose, or null when it cannot be decrypted with `poll` (not the poll's
 * secret, or signed by other JIDs than those tried). The key binds the poll's id, its creator's JID
 * and the voter's JID as the voter's phone named them: by LID in a LID-addressed chat, by number
 * otherwise (zapo PR #230, whatsmeow PR #1069), so every form of both is tried.
 */
export function decryptVote(pending: PendingVote, poll: WAMessage, creatorJids: string[]): string[] | null {
  const secret = poll.message?.messageContextInfo?.messageSecret
  if (!secret) return null
  for (const creator of new Set(creatorJids.map(stripDevice))) {
    for (const voter of pending.voterJids) {
      let vote: proto.Message.PollVoteMessage
      try {
        vote = decryptPollVote(pending.vote, { pollCreatorJid: creator, pollMsgId: pending.pollKey.id, pollEncKey: secret, voterJid: voter })
      } catch {
        continue
      }
      // The library's own tally maps each chosen option's hash to its name.
      const tally = getAggregateVotesInPollMessage({ message: poll.message, pollUpdates: [{ pollUpdateMessageKey: { id: pending.change.changeId, remoteJid: voter }, vote }] })
      return tally.filter((o) => o.voters.length > 0 && o.name !== 'Unknown').map((o) => o.name)
    }
  }
  return null
}
