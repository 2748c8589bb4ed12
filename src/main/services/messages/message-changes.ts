/**
 * Changes to messages already in the log (docs/design.md §7, docs/baileys.md "Edits, deletions,
 * reactions and polls"): edits, deletions for everyone, reactions and poll votes that channels report
 * ({@link MessageChange}), and reactions the shop sends. Each change is decided on the stored entry in
 * the write's transaction ({@link changePatch}, pure), written, and announced as `messageChanged` (the
 * UI's bubble, the webhooks onMessageEdit, onMessageDelete, onMessageReaction, onPollVote). A change
 * never reaches the bot: an edit is not a new message.
 *
 * Who may change what: only the author edits or deletes a message (WhatsApp checks this on its side;
 * a forged change naming another's message id is ignored here too); anyone in the chat reacts; only a
 * poll in the log gets votes, for its own options. A deleted message keeps its record (who, when,
 * its kind) and loses its text, media, edit history, reactions and poll: the text leaves the search
 * index with it (the index follows the text column, migration 1's triggers).
 */
import type { MessageChange, ReactionTarget } from '../../channel/types'
import { ChannelError } from '../../channel/types'
import type { Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import type { Logger } from '../../logger'
import type { MessageRepo } from '../../store/repos/message-repo'
import type { Instance, LoggedMessage, MessageReaction, PollTally } from '../../../shared/schemas/records'
import { conflict, notFound } from '../../errors'
import { resolveRecipient, type Outbound } from './outbound'
import type { MediaFiles } from './media-files'

/** What a change writes to an entry, and the text it replaced (edits). */
export interface ChangePatch {
  patch: Partial<Omit<LoggedMessage, 'id'>>
  previousText?: string
}

/** Who made a change, as entries name reactors and voters: "me" for the shop, else the JID. */
export const actorOf = (change: Pick<MessageChange, 'fromMe' | 'senderId'>): string => (change.fromMe ? 'me' : change.senderId)

/** True when `change` comes from whoever wrote `entry` (the shop for its own, else the same sender). */
function isAuthor(entry: LoggedMessage, change: MessageChange): boolean {
  if (entry.fromMe !== change.fromMe) return false
  if (change.fromMe) return true
  const theirs = new Set([change.senderId, change.senderPn, change.senderLid].filter(Boolean))
  return [entry.senderId, entry.senderPn, entry.senderLid, entry.chatId.endsWith('@g.us') ? undefined : entry.chatId].some((j) => j !== undefined && theirs.has(j))
}

/** The poll with `voter`'s choice replaced by `selected` (its own options only), counts recomputed. */
export function tallyVote(poll: PollTally, voter: string, selected: string[], at: number): PollTally {
  const names = new Set(poll.options.map((o) => o.name))
  const chosen = [...new Set(selected.filter((s) => names.has(s)))]
  const limit = poll.selectable > 0 ? chosen.slice(0, poll.selectable) : chosen
  const voters = poll.voters.filter((v) => v.by !== voter)
  if (limit.length > 0) voters.push({ by: voter, options: limit, at })
  const count = (name: string) => voters.filter((v) => v.options.includes(name)).length
  return { ...poll, options: poll.options.map((o) => ({ name: o.name, votes: count(o.name) })), voters }
}

/** `reactions` with `by`'s reaction set to `emoji` (`''` removes it). */
export function withReaction(reactions: readonly MessageReaction[], reaction: MessageReaction): MessageReaction[] {
  const others = reactions.filter((r) => r.by !== reaction.by)
  return reaction.emoji ? [...others, reaction] : others
}

/**
 * What `change` does to `entry`, or null when it does nothing (another chat, not the author, a
 * deleted message, a repeat). Times in epoch ms. Pure.
 */
export function changePatch(entry: LoggedMessage, change: MessageChange): ChangePatch | null {
  if (entry.chatId !== change.chatId || entry.deleted) return null
  const at = change.timestamp * 1000
  switch (change.kind) {
    case 'edit': {
      if (!isAuthor(entry, change) || change.text === entry.text) return null
      const history = [...(entry.edited?.history ?? []), { text: entry.text, at: entry.edited?.at ?? entry.timestamp }]
      return { patch: { text: change.text, edited: { at, history } }, previousText: entry.text }
    }
    case 'delete':
      if (!isAuthor(entry, change)) return null
      return {
        patch: {
          text: '',
          media: undefined,
          location: undefined,
          options: undefined,
          edited: undefined,
          reactions: undefined,
          poll: undefined,
          deleted: { at, by: change.fromMe ? 'phone' : 'customer' }
        }
      }
    case 'reaction': {
      const reactions = withReaction(entry.reactions ?? [], { by: actorOf(change), fromMe: change.fromMe, emoji: change.emoji, at })
      const same = JSON.stringify(reactions) === JSON.stringify(entry.reactions ?? [])
      return same ? null : { patch: { reactions } }
    }
    case 'poll_vote':
      if (!entry.poll) return null
      return { patch: { poll: tallyVote(entry.poll, actorOf(change), change.selected, at) } }
  }
}

export interface MessageChangeDeps {
  messages: Pick<MessageRepo, 'find' | 'updateIf'>
  /** Media files the desk downloaded (a deleted message's file goes with it). */
  media: Pick<MediaFiles, 'remove'>
  /** The connected session of an instance (409 otherwise): reactions the shop sends. */
  outbound: Pick<Outbound, 'connectedSession'>
  events: CoreEventBus
  clock: Clock
  logger: Logger
}

/** `POST /chatapp/message/reaction`'s input. */
export interface ReactionInput {
  chatId: string
  messageId: string
  /** One emoji; `''` takes the shop's reaction back. */
  emoji: string
}

export class MessageChangeService {
  constructor(private readonly deps: MessageChangeDeps) {}

  /** Applies a channel's report to the log and announces it (see the module doc). Never rejects. */
  async apply(instanceId: string, change: MessageChange): Promise<void> {
    try {
      let previousText: string | undefined
      const updated = await this.deps.messages.updateIf(instanceId, change.id, (entry) => {
        const decided = changePatch(entry, change)
        previousText = decided?.previousText
        return decided?.patch ?? null
      })
      if (!updated) return
      // The bytes of a deleted message's media, if the desk downloaded them, go too.
      if (change.kind === 'delete') await this.deps.media.remove(instanceId, [change.id])
      await this.deps.events.emitDurable('messageChanged', { instanceId, message: updated, change, ...(previousText !== undefined ? { previousText } : {}) })
    } catch (err) {
      this.deps.logger.error({ err, instanceId, messageId: change.id, kind: change.kind }, 'could not apply a change to a message')
    }
  }

  /**
   * The shop reacts to message `messageId` of chat `chatId` (WhatsApp shows one reaction per person:
   * a new one replaces it, `''` removes it). 404 when the chat has no such message; 409 when the
   * instance is not connected or its channel cannot react. Answers the reaction as stored.
   */
  async react(inst: Pick<Instance, '_id'>, input: ReactionInput): Promise<{ chatId: string; messageId: string; emoji: string; message: LoggedMessage }> {
    const chatId = await resolveRecipient(input.chatId, () => this.deps.outbound.connectedSession(inst))
    const entry = await this.deps.messages.find(inst._id, input.messageId)
    if (!entry || entry.chatId !== chatId) throw notFound('Message')
    if (entry.deleted) throw conflict('This message was deleted for everyone; it cannot get reactions.')
    const session = this.deps.outbound.connectedSession(inst)
    if (!session.react) throw conflict('This channel cannot send reactions.')
    const target: ReactionTarget = { chatId, id: entry.id, fromMe: entry.fromMe, ...(entry.chatId.endsWith('@g.us') && !entry.fromMe && entry.senderId ? { participant: entry.senderId } : {}) }
    try {
      await session.react(target, input.emoji)
    } catch (err) {
      if (err instanceof ChannelError) throw conflict(err.message)
      throw err
    }
    const change: MessageChange = {
      kind: 'reaction',
      id: entry.id,
      changeId: '',
      chatId,
      senderId: 'me',
      fromMe: true,
      timestamp: Math.floor(this.deps.clock.now() / 1000),
      offline: false,
      emoji: input.emoji
    }
    await this.apply(inst._id, change)
    const message = (await this.deps.messages.find(inst._id, entry.id)) ?? entry
    return { chatId, messageId: entry.id, emoji: input.emoji, message }
  }
}
