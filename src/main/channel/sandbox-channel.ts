/**
 * The sandbox channel (docs/design.md §6): a channel with no network, for trying bots before linking a
 * real number, for the app's Test chat and for every test.
 *
 * It walks the real states: start → CONNECTING → QR (a real QR payload that rotates every 20 s) →
 * {@link SandboxSession.simulateScan} (the phone scanning) → CONNECTED with a generated bot number.
 * The pairing is saved as the instance's credentials (`ctx.store.auth`, the `auth_creds` row: the JSON
 * of {@link SandboxCreds}), so a restart reconnects without a new QR, and logout deletes it. Sends return results shaped like Baileys' (docs/api-seed.md §2.11) with real sha256, sizes
 * and image dimensions, computed from the file, and are then acknowledged as the network would
 * (SERVER_ACK, DELIVERY_ACK, READ when the simulated customer reads; ./sandbox-receipts.ts).
 */
import { createHash, randomBytes, randomInt } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { newMessageId } from '../ids'
import { readImageInfo } from '../media/image-info'
import { digestFile, kindOfMime } from '../media/media-inspect'
import { toJid } from './jid'
import { SandboxReceipts } from './sandbox-receipts'
import {
  ChannelError,
  OWN_LOGOUT_REASON,
  type ChannelContext,
  type ChannelSession,
  type ConnectionState,
  type DownloadedMedia,
  type GroupAddResult,
  type InboundMessage,
  type LinkedAccount,
  type MediaSource,
  type OutboundContent,
  type ReadKey,
  type SendLimits,
  type SentMessage,
  type ChannelSendOptions
} from './types'

/** How often the sandbox QR rotates, like the real one's later refs (ms). */
export const SANDBOX_QR_ROTATE_MS = 20_000

/** The sandbox's pairing, stored as the instance's credentials (JSON; release 0.1's `sandbox-creds.json`). */
export interface SandboxCreds {
  account: LinkedAccount
  /** ISO 8601. */
  pairedAt: string
}

/** An inbound message as the sandbox route takes it (docs/design.md §6). */
export interface SandboxInbound {
  chatId: string
  message: string
  pushName?: string
  participant?: string
  /** Message id; generated when absent. Same id twice = a duplicate (dedupe tests). */
  id?: string
  /** Simulates a message delivered as offline backlog on reconnect. */
  offline?: boolean
  /** Simulates a message the linked phone sent itself. */
  fromMe?: boolean
  /** Pressed button payload / list rowId, for interactive replies. */
  selectedId?: string
  /** Sender LID, to simulate v7 addressing. */
  senderLid?: string
  /** A file the customer sends (a media message with `message` as its caption). */
  media?: MediaSource
  /** When it was sent, epoch seconds (default now): an older one simulates a late delivery. */
  timestamp?: number
  /** Simulates a location message (`message` is its name). */
  location?: { latitude: number; longitude: number }
}

/** Inbound media files remembered for download, like the real channel's recent-message store. */
const MEDIA_MEMORY = 500

export class SandboxSession implements ChannelSession {
  readonly kind = 'sandbox' as const
  private state: ConnectionState = 'DISCONNECTED'
  private rotateTimer: NodeJS.Timeout | null = null
  private qrRef = ''
  private pairingCode: string | null = null
  private pairingPhone: string | null = null
  private readonly inboundMedia = new Map<string, MediaSource>()
  private readonly now = (): number => this.ctx.now?.() ?? Date.now()
  /** Read receipts the session sent (markRead), oldest first. */
  readonly readReceipts: ReadKey[] = []
  /** "typing…" presences the session showed before a send, oldest first (epoch ms by the app's clock). */
  readonly presences: { jid: string; at: number }[] = []
  /** "typing…" shown and stopped while something slower was written (the assistant), oldest first. */
  readonly chatStates: { jid: string; state: 'composing' | 'paused'; at: number }[] = []
  /** Numbers (digits) the simulated network says are not on WhatsApp. */
  private readonly notOnWhatsApp = new Set<string>()

  /** The simulated network's receipts of what this device sends. */
  private readonly receipts: SandboxReceipts

  constructor(private readonly ctx: ChannelContext) {
    this.receipts = new SandboxReceipts({ report: (update) => this.ctx.hooks.onMessageStatus(update), connected: () => this.state === 'CONNECTED' })
  }

  get currentState(): ConnectionState {
    return this.state
  }

  async start(): Promise<void> {
    if (this.state === 'CONNECTING' || this.state === 'QR' || this.state === 'CONNECTED') return
    this.setState({ state: 'CONNECTING' })
    let creds: SandboxCreds | null
    try {
      creds = await this.readCreds()
    } catch (err) {
      this.ctx.logger.error({ err }, 'could not read the saved sandbox pairing')
      this.setState({ state: 'DISCONNECTED', reason: `could not read the saved pairing: ${err instanceof Error ? err.message : String(err)}` })
      return
    }
    // The session may have been stopped while reading.
    if ((this.state as ConnectionState) !== 'CONNECTING') return
    if (creds) {
      this.setState({ state: 'CONNECTED', account: creds.account })
      return
    }
    this.rotateQr()
    this.rotateTimer = setInterval(() => this.rotateQr(), SANDBOX_QR_ROTATE_MS)
    this.rotateTimer.unref()
  }

  async stop(): Promise<void> {
    this.clearTimer()
    this.receipts.stop()
    if (this.state !== 'DISCONNECTED' && this.state !== 'LOGGED_OUT') this.setState({ state: 'DISCONNECTED', reason: 'stopped' })
  }

  async logout(): Promise<void> {
    this.clearTimer()
    this.receipts.stop()
    await this.ctx.store.auth.remove(this.ctx.instanceId)
    this.setState({ state: 'LOGGED_OUT', reason: OWN_LOGOUT_REASON })
  }

  /** The owner removes this linked device on the phone: the credentials go, LOGGED_OUT with WhatsApp's reason. */
  async simulateDeviceRemoved(): Promise<void> {
    if (this.state !== 'CONNECTED') throw new ChannelError('NOT_CONNECTED', 'The sandbox instance is not connected.')
    this.clearTimer()
    await this.ctx.store.auth.remove(this.ctx.instanceId)
    this.setState({ state: 'LOGGED_OUT', reason: 'logged out by WhatsApp: the device was removed on the phone; the device must be linked again' })
  }

  async requestPairingCode(phone: string): Promise<string> {
    if (this.state === 'CONNECTED') throw new ChannelError('ALREADY_PAIRED', 'The instance is already linked.')
    if (this.state !== 'QR') throw new ChannelError('NOT_STARTED', 'Call /chatapp/init first, then ask for a pairing code.')
    this.pairingCode = randomBytes(4).toString('hex').toUpperCase()
    this.pairingPhone = phone.replace(/\D/g, '')
    return this.pairingCode
  }

  /**
   * The phone scans the QR (or enters the pairing code): links the sandbox device. Throws
   * ChannelError when the session is not showing a QR.
   */
  async simulateScan(): Promise<LinkedAccount> {
    if (this.state === 'CONNECTED') throw new ChannelError('ALREADY_PAIRED', 'The instance is already linked.')
    if (this.state !== 'QR') throw new ChannelError('NOT_STARTED', 'The instance is not showing a QR code; call /chatapp/init first.')
    const phone = this.pairingPhone ?? `1555${String(randomInt(0, 10_000_000)).padStart(7, '0')}`
    const account: LinkedAccount = {
      id: `${phone}@s.whatsapp.net`,
      name: 'Sandbox',
      phone,
      lid: `${String(randomInt(10_000_000, 99_999_999))}${String(randomInt(1_000_000, 9_999_999))}@lid`
    }
    const pairedAt = new Date(this.now()).toISOString()
    const creds: SandboxCreds = { account, pairedAt }
    // Saved first: when the disk refuses it (StorageFullError), the QR stays on screen for another try.
    await this.ctx.store.auth.saveCreds(this.ctx.instanceId, JSON.stringify(creds), pairedAt)
    this.clearTimer()
    this.setState({ state: 'CONNECTED', account })
    return account
  }

  /** Delivers an inbound message exactly as a real one arrives. Throws when not connected. */
  async simulateInbound(input: SandboxInbound): Promise<InboundMessage> {
    if (this.state !== 'CONNECTED') throw new ChannelError('NOT_CONNECTED', 'The sandbox instance is not connected; scan its QR code first.')
    const chatId = toJid(input.chatId)!
    const participant = input.participant ? toJid(input.participant)! : undefined
    const senderId = chatId.endsWith('@g.us') && participant ? participant : chatId
    const id = input.id ?? newMessageId()
    const media = input.media
    if (media) {
      this.inboundMedia.set(id, media)
      if (this.inboundMedia.size > MEDIA_MEMORY) this.inboundMedia.delete(this.inboundMedia.keys().next().value!)
    }
    const message: InboundMessage = {
      id,
      chatId,
      senderId,
      senderPn: senderId.endsWith('@s.whatsapp.net') ? senderId : undefined,
      senderLid: input.senderLid,
      fromMe: input.fromMe ?? false,
      pushName: input.pushName,
      type: media ? kindOfMime(media.mimetype) : input.location ? 'location' : input.selectedId ? 'button_reply' : 'text',
      text: input.message,
      ...(media ? { media: { mimetype: media.mimetype, fileName: media.fileName, size: media.size } } : {}),
      selectedId: input.selectedId,
      ...(input.location ? { location: input.location } : {}),
      timestamp: input.timestamp ?? Math.floor(this.now() / 1000),
      offline: input.offline ?? false
    }
    // A customer who writes has the chat open: what was sent to them is read.
    if (!message.fromMe) this.receipts.read(chatId)
    await this.ctx.hooks.onMessage(message)
    return message
  }

  async send(jid: string, content: OutboundContent, options: ChannelSendOptions = {}): Promise<SentMessage> {
    if (this.state !== 'CONNECTED') throw new ChannelError('NOT_CONNECTED', 'The instance is not connected.')
    if (this.notOnWhatsApp.has(jid.split('@')[0]!)) throw new ChannelError('NOT_ON_WHATSAPP', `${jid.split('@')[0]} is not on WhatsApp.`)
    if (options.composing) this.presences.push({ jid, at: this.now() })
    const sent: SentMessage = {
      key: { remoteJid: jid, fromMe: true, id: newMessageId() },
      message: await this.buildMessage(content),
      messageTimestamp: String(Math.floor(this.now() / 1000)),
      status: 'PENDING'
    }
    this.receipts.sent(jid, sent.key.id)
    return sent
  }

  /** The customer of `chatId` opens the chat: what was sent there is READ. Answers how many messages. */
  simulateRead(chatId: string): number {
    if (this.state !== 'CONNECTED') throw new ChannelError('NOT_CONNECTED', 'The sandbox instance is not connected; scan its QR code first.')
    return this.receipts.read(toJid(chatId)!)
  }

  async setTyping(jid: string, typing: boolean): Promise<void> {
    if (this.state !== 'CONNECTED') throw new ChannelError('NOT_CONNECTED', 'The instance is not connected.')
    this.chatStates.push({ jid, state: typing ? 'composing' : 'paused', at: this.now() })
  }

  /** The bytes of an inbound media message (as the real channel downloads them on demand). */
  async downloadMedia(messageId: string): Promise<DownloadedMedia> {
    const media = this.inboundMedia.get(messageId)
    if (!media) throw new ChannelError('MEDIA_UNAVAILABLE', `No recent message ${messageId} with media.`)
    try {
      return { data: await readFile(media.path), mimetype: media.mimetype, ...(media.fileName ? { fileName: media.fileName } : {}) }
    } catch {
      throw new ChannelError('MEDIA_UNAVAILABLE', `The media of ${messageId} is no longer available.`)
    }
  }

  /**
   * What the simulated WhatsApp says: numbers that are not on WhatsApp (sends to them fail as on the real
   * network), numbers whose sends the server refuses after taking them (`failSends`: ERROR 463; the
   * list replaces the previous one, [] clears it), and the account's outreach limits
   * (`message-capping.update`, a reach-out lock).
   */
  simulateNetwork(change: { notOnWhatsApp?: readonly string[]; failSends?: readonly string[]; limits?: SendLimits }): void {
    for (const n of change.notOnWhatsApp ?? []) this.notOnWhatsApp.add(n.replace(/\D/g, ''))
    if (change.failSends) this.receipts.refuse(change.failSends)
    if (change.limits) this.ctx.hooks.onLimits(change.limits)
  }

  /** Keeps the keys (newest last) for tests and the Test chat to see what a phone would have been told. */
  async markRead(keys: ReadKey[]): Promise<void> {
    if (this.state !== 'CONNECTED') throw new ChannelError('NOT_CONNECTED', 'The instance is not connected.')
    this.readReceipts.push(...keys)
  }

  async addToGroup(groupJid: string, participants: string[]): Promise<GroupAddResult[]> {
    if (this.state !== 'CONNECTED') throw new ChannelError('NOT_CONNECTED', 'The instance is not connected.')
    // Sandbox convention: a group whose id starts with 999 is one where the bot is not an admin.
    if (groupJid.startsWith('999')) throw new ChannelError('NOT_GROUP_ADMIN', `The bot is not an admin of ${groupJid}.`)
    return participants.map((jid) => ({ jid, status: '200' }))
  }

  private async buildMessage(content: OutboundContent): Promise<Record<string, unknown>> {
    switch (content.kind) {
      case 'text':
        return { extendedTextMessage: { text: content.text } }
      case 'location':
        return {
          locationMessage: {
            degreesLatitude: content.latitude,
            degreesLongitude: content.longitude,
            ...(content.name ? { name: content.name } : {}),
            ...(content.address ? { address: content.address } : {})
          }
        }
      case 'contact':
        return { contactMessage: { displayName: content.displayName, vcard: content.vcard } }
      case 'image': {
        const base = await this.mediaFields(content.media)
        const info = await readImageInfo(content.media.path)
        return {
          imageMessage: {
            ...base,
            caption: content.caption ?? '',
            height: info.height,
            width: info.width,
            jpegThumbnail: info.jpegThumbnail
          }
        }
      }
      case 'video':
        return { videoMessage: { ...(await this.mediaFields(content.media)), caption: content.caption ?? '' } }
      case 'audio':
        return { audioMessage: { ...(await this.mediaFields(content.media)), ptt: content.voiceNote ?? false } }
      case 'document':
        return {
          documentMessage: {
            ...(await this.mediaFields(content.media)),
            fileName: content.fileName,
            title: content.fileName,
            caption: content.caption ?? ''
          }
        }
    }
  }

  /** The media fields every Baileys media message has; hashes are real, keys are random. */
  private async mediaFields(media: MediaSource): Promise<Record<string, unknown>> {
    const { sha256, size } = await digestFile(media.path)
    const mediaKey = randomBytes(32)
    const fileSha256 = Buffer.from(sha256, 'hex')
    // The "encrypted" hash stands for the upload's; derive it so it is stable per file and key.
    const fileEncSha256 = createHash('sha256').update(mediaKey).update(fileSha256).digest()
    const token = fileEncSha256.toString('base64url')
    const now = Math.floor(Date.now() / 1000)
    return {
      url: `https://sandbox.chatapp.invalid/v/t62.7118-24/${token}.enc`,
      mimetype: media.mimetype,
      fileSha256: fileSha256.toString('base64'),
      fileLength: String(size),
      mediaKey: mediaKey.toString('base64'),
      fileEncSha256: fileEncSha256.toString('base64'),
      directPath: `/v/t62.7118-24/${token}.enc?ccb=11-4`,
      mediaKeyTimestamp: String(now)
    }
  }

  private rotateQr(): void {
    this.qrRef = randomBytes(16).toString('base64url')
    if (this.state !== 'QR') this.setState({ state: 'QR' })
    // Same layout as WhatsApp's pairing QR: ref,noiseKey,identityKey,advSecret.
    const qr = [this.qrRef, randomBytes(32).toString('base64'), randomBytes(32).toString('base64'), randomBytes(32).toString('base64')].join(',')
    this.ctx.hooks.onQr(`sandbox:${this.ctx.instanceId}:${qr}`)
  }

  private clearTimer(): void {
    if (this.rotateTimer) clearInterval(this.rotateTimer)
    this.rotateTimer = null
  }

  private setState(update: { state: ConnectionState; account?: LinkedAccount; reason?: string }): void {
    this.state = update.state
    this.ctx.hooks.onState(update)
  }

  /** The saved pairing; null when none, or when the saved text is not a sandbox pairing (it pairs again). */
  private async readCreds(): Promise<SandboxCreds | null> {
    const text = await this.ctx.store.auth.creds(this.ctx.instanceId)
    if (text === undefined) return null
    try {
      const creds = JSON.parse(text) as Partial<SandboxCreds> | null
      return creds?.account && typeof creds.account.id === 'string' ? (creds as SandboxCreds) : null
    } catch {
      return null
    }
  }
}

/** Factory for the session manager. */
export function createSandboxSession(ctx: ChannelContext): SandboxSession {
  return new SandboxSession(ctx)
}
