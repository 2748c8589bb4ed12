/**
 * Driving sandbox instances (docs/design.md §6): the phone's scan and a customer's inbound message, for
 * the HTTP routes and the UI's Test chat alike. Inbound messages take the real path (message log, bot
 * engine, webhooks); the answer waits for the bot and carries its replies to that chat.
 */
import { SandboxSession, type SandboxInbound } from '../channel/sandbox-channel'
import { ChannelError, type LinkedAccount } from '../channel/types'
import type { CoreEventBus } from '../events'
import type { MessageRepo } from '../store/repos/message-repo'
import type { Stored } from '../store/repos'
import type { Instance, LoggedMessage, SendLimits } from '../../shared/schemas/records'
import type { AttachmentService } from './attachment-service'
import { conflict, invalid } from '../errors'
import { resolveChat } from './messages/outbound'
import type { SessionManager } from './instances/session-manager'

export interface SandboxServiceDeps {
  log: Pick<MessageRepo, 'find'>
  events: CoreEventBus
  sessions: SessionManager
  attachments: AttachmentService
}

/** A customer's message: the route's body without credentials; `attachmentId` makes it a media message. */
export type SandboxInboundInput = Omit<SandboxInbound, 'media'> & { attachmentId?: string }

export class SandboxService {
  constructor(private readonly deps: SandboxServiceDeps) {}

  /** The phone scans the QR: links the device. 409 when not a started sandbox or already linked. */
  async scan(inst: Stored<Instance>): Promise<LinkedAccount> {
    const account = await this.call(() => this.session(inst).simulateScan())
    await this.deps.sessions.settled(inst._id)
    return account
  }

  /** The phone removes the linked device (Linked devices → Log out): LOGGED_OUT. 409 when not a connected sandbox. */
  async removeDevice(inst: Stored<Instance>): Promise<void> {
    await this.call(() => this.session(inst).simulateDeviceRemoved())
    await this.deps.sessions.settled(inst._id)
  }

  /**
   * What the simulated network says about numbers (not on WhatsApp; sends refused with ERROR 463) and
   * the account's limits. 409 when not a started sandbox.
   */
  network(inst: Stored<Instance>, change: { notOnWhatsApp?: string[]; failSends?: string[]; limits?: SendLimits }): void {
    this.session(inst).simulateNetwork(change)
  }

  /**
   * The customer of `chatId` opens the chat and reads it: what was sent there turns READ (reported as
   * the network's receipts are, just after this answers). Answers how many messages. 400 for a bad
   * chat id, 409 when not a connected sandbox.
   */
  async read(inst: Stored<Instance>, chatId: string): Promise<{ read: number }> {
    const jid = resolveChat(chatId)
    const session = this.session(inst)
    return { read: await this.call(async () => session.simulateRead(jid)) }
  }

  /** Delivers a customer's message; answers it as logged and the bot's replies to that chat. */
  async inbound(inst: Stored<Instance>, input: SandboxInboundInput): Promise<{ message: LoggedMessage | null; replies: LoggedMessage[] }> {
    const chatId = resolveChat(input.chatId)
    if (input.participant !== undefined) resolveChat(input.participant, 'participant')
    const { attachmentId, ...rest } = input
    const media = attachmentId === undefined ? undefined : await this.media(inst, attachmentId)
    const session = this.session(inst)
    const replies: LoggedMessage[] = []
    const stop = this.deps.events.on('message', (e) => {
      if (e.instanceId === inst._id && e.message.source === 'bot' && e.message.chatId === chatId) replies.push(e.message)
    })
    try {
      const inbound = await this.call(() => session.simulateInbound({ ...rest, chatId, media }))
      return { message: (await this.deps.log.find(inst._id, inbound.id)) ?? null, replies }
    } finally {
      stop()
    }
  }

  private async media(inst: Stored<Instance>, attachmentId: string) {
    let a
    try {
      a = await this.deps.attachments.get(inst, attachmentId)
    } catch {
      throw invalid('attachmentId', 'names no attachment of this instance')
    }
    return this.deps.attachments.source(a)
  }

  private session(inst: Stored<Instance>): SandboxSession {
    if (inst.settings.channel !== 'sandbox') throw conflict('This instance runs on the real channel; only sandbox instances can be driven this way.')
    const session = this.deps.sessions.get(inst._id)
    if (!(session instanceof SandboxSession)) throw conflict(`The instance is not started (status ${inst.settings.status}); init it first.`)
    return session
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      if (err instanceof ChannelError) throw conflict(err.message)
      throw err
    }
  }
}
