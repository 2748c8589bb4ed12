/**
 * Instances: create, list, credentials, connection (init, QR, pairing code, logout), delete, and the
 * bot settings updates (seed §4.3–4.4, DESIGN.md §3 and §5).
 */
import { timingSafeEqual } from 'node:crypto'
import { rm } from 'node:fs/promises'
import type { ChannelKind, ConnectionState } from '../channel/types'
import type { CoreEventBus } from '../events'
import { newObjectId, newSecret, newWebhookSecret } from '../ids'
import type { Storage } from '../store/storage'
import type { Instance, InstanceSettings } from '../../shared/schemas/records'
import type {
  DeleteResult,
  InitBody,
  SetWebhookBody,
  UpdateActionsBody,
  UpdateActiveDaysBody,
  UpdateActiveHoursBody,
  UpdateGeneralBody,
  UpdateResult
} from '../../shared/schemas/operations'
import { AppError, conflict, invalid, notFound } from './errors'
import type { SessionManager } from './session-manager'
import { ChannelError } from '../channel/types'

/** The friendly default reply (DESIGN.md §5). */
export const DEFAULT_MSG = '{Hi|Hello} [name], thanks for your message! We will reply soon.'

export interface InstanceServiceDeps {
  storage: Storage
  sessions: SessionManager
  events: CoreEventBus
  defaultChannel: ChannelKind
}

function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

/** Settings of a new instance (seed 2.7 defaults). */
export function defaultSettings(channel: ChannelKind): InstanceSettings {
  return {
    bot_number: null,
    bot_name: 'Chatapp Bot',
    status: 'DISCONNECTED',
    bot_timezone: localTimeZone(),
    bot_lang: 'en',
    default_msg: DEFAULT_MSG,
    actions: {
      send_default_msg: true,
      reply_group_msgs: true,
      reply_unread_msgs: true,
      reply_msgs: true,
      multi_device: false,
      send_webhook: false
    },
    active_days: { monday: true, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: true, sunday: true },
    active_hours: { from: 'always', to: 'always' },
    access_token: newSecret(24),
    channel,
    webhook: { url: null, events: ['onMessage', 'onAnyMessage'], requestConfig: {}, secret: newWebhookSecret() },
    user: null
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function updateResult(modified: boolean): UpdateResult {
  return { acknowledged: true, modifiedCount: modified ? 1 : 0, upsertedId: null, upsertedCount: 0, matchedCount: 1 }
}

export class InstanceService {
  constructor(private readonly deps: InstanceServiceDeps) {}

  private get data() {
    return this.deps.storage.config.data
  }

  private get accountId(): string {
    return this.data.account!._id
  }

  /** Creates an instance in state DISCONNECTED. */
  async create(channel?: ChannelKind): Promise<Instance> {
    const now = new Date().toISOString()
    const inst: Instance = {
      _id: newObjectId(),
      user_id: this.accountId,
      session_id: newSecret(18),
      settings: defaultSettings(channel ?? this.deps.defaultChannel),
      createdAt: now,
      updatedAt: now,
      __v: 0
    }
    await this.deps.storage.config.update((d) => {
      d.instances.push(inst)
    })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'instance' })
    return inst
  }

  list(): Instance[] {
    return this.data.instances
  }

  /** An instance by id; 404 when unknown. */
  get(instanceId: string): Instance {
    const inst = this.data.instances.find((i) => i._id === instanceId)
    if (!inst) throw notFound('Instance')
    return inst
  }

  /**
   * The instance the credentials name. Missing or non-string credentials are a 400 naming the field;
   * credentials that match no instance are a 401 (DESIGN.md §3). Tokens compare in constant time.
   */
  authenticate(sessionId: unknown, accessToken: unknown): Instance {
    if (sessionId === undefined || sessionId === null || sessionId === '') throw invalid('session_id', 'is required')
    if (typeof sessionId !== 'string') throw invalid('session_id', 'must be a string')
    if (accessToken === undefined || accessToken === null || accessToken === '') throw invalid('access_token', 'is required')
    if (typeof accessToken !== 'string') throw invalid('access_token', 'must be a string')
    const inst = this.data.instances.find((i) => safeEqual(i.session_id, sessionId))
    if (!inst || !safeEqual(inst.settings.access_token, accessToken)) {
      throw new AppError('UNAUTHORIZED', 'Invalid session_id or access_token')
    }
    return inst
  }

  /** Starts the session (idempotent) and applies init's config (DESIGN.md §5). */
  async init(inst: Instance, config: InitBody['config']): Promise<{ status: ConnectionState }> {
    if (config?.setWebhook && !config.webhookUrl && !inst.settings.webhook.url) {
      throw invalid('config.webhookUrl', 'is required when config.setWebhook is true')
    }
    await this.mutate(inst, (s) => {
      if (config?.multiDevice !== undefined) s.actions.multi_device = config.multiDevice
      if (config?.setWebhook) {
        if (config.webhookUrl) s.webhook.url = config.webhookUrl
        s.actions.send_webhook = true
      }
    })
    await this.deps.sessions.start(inst._id)
    return { status: inst.settings.status as ConnectionState }
  }

  /** The current QR payload; 409 when connected, not started, or not showing a QR yet. */
  currentQr(inst: Instance): { qr: string; status: ConnectionState } {
    const status = inst.settings.status as ConnectionState
    if (status === 'CONNECTED') throw conflict('The instance is already connected; there is no QR code to scan.')
    const qr = this.deps.sessions.latestQr(inst._id)
    if (!this.deps.sessions.get(inst._id)) {
      throw conflict(`The instance is not started (status ${status}). Call POST /chatapp/init first.`)
    }
    if (!qr || status !== 'QR') {
      const reason = this.deps.sessions.stateReason(inst._id)
      throw conflict(`No QR code yet (status ${status}${reason ? `: ${reason}` : ''}); try again in a moment.`)
    }
    return { qr, status }
  }

  /** Pairing by phone number; answers the code to type on the phone. */
  async pairingCode(inst: Instance, phone: string): Promise<{ pairingCode: string; status: ConnectionState }> {
    const session = this.deps.sessions.get(inst._id)
    if (!session) throw conflict('The instance is not started. Call POST /chatapp/init first.')
    try {
      const code = await session.requestPairingCode(phone.replace(/\D/g, ''))
      return { pairingCode: code, status: inst.settings.status as ConnectionState }
    } catch (err) {
      if (err instanceof ChannelError) throw conflict(err.message)
      throw err
    }
  }

  /** Instance info (seed 2.8). */
  info(inst: Instance) {
    return {
      error: false,
      message: 'Instance fetched successfully',
      instance_data: {
        instance_key: inst.session_id,
        phone_connected: inst.settings.status === 'CONNECTED',
        webhookUrl: inst.settings.webhook.url,
        user: inst.settings.user ?? { id: '', name: '' },
        status: inst.settings.status,
        // Why it is in that state, e.g. the last connection error while reconnecting.
        status_reason: this.deps.sessions.stateReason(inst._id) ?? null,
        // WhatsApp's outreach limits on the number (capping, reach-out lock), when it reported any.
        limits: this.deps.sessions.limits(inst._id) ?? null
      }
    }
  }

  /** Unlinks the device and deletes its credentials; status LOGGED_OUT. */
  async logout(inst: Instance): Promise<{ status: ConnectionState }> {
    await this.deps.sessions.logout(inst._id)
    return { status: inst.settings.status as ConnectionState }
  }

  /** Deletes the instance and everything it owns (DESIGN.md §5). 404 when unknown. */
  async delete(instanceId: string): Promise<DeleteResult> {
    const inst = this.get(instanceId)
    await this.deps.sessions.logout(inst._id).catch(() => {})
    const attachmentFiles = this.data.attachments.filter((a) => a.instance_id === inst._id).map((a) => a._id)
    await this.deps.storage.config.update((d) => {
      d.instances = d.instances.filter((i) => i._id !== inst._id)
      d.intents = d.intents.filter((r) => r.instance_id !== inst._id)
      d.surveys = d.surveys.filter((r) => r.instance_id !== inst._id)
      d.attachments = d.attachments.filter((r) => r.instance_id !== inst._id)
    })
    await this.deps.storage.runtime.update((d) => {
      d.surveyRuns = d.surveyRuns.filter((r) => r.instance_id !== inst._id)
    })
    const { paths, messages } = this.deps.storage
    await Promise.all([
      messages.remove(inst._id),
      rm(this.deps.sessions.authDir(inst._id), { recursive: true, force: true }),
      ...attachmentFiles.map((id) => rm(`${paths.attachments}/${id}`, { force: true }))
    ])
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'deleted' })
    return { n: 1, ok: 1, deletedCount: 1 }
  }

  async updateGeneral(inst: Instance, body: UpdateGeneralBody): Promise<UpdateResult> {
    return this.mutate(inst, (s) => {
      if (body.bot_name !== undefined) s.bot_name = body.bot_name
      if (body.bot_timezone !== undefined) s.bot_timezone = body.bot_timezone.trim()
      if (body.bot_lang !== undefined) s.bot_lang = Intl.getCanonicalLocales(body.bot_lang)[0]!
      if (typeof body.default_msg === 'string') s.default_msg = body.default_msg
      if (typeof body.default_msg === 'boolean') s.actions.send_default_msg = body.default_msg
    })
  }

  async updateActions(inst: Instance, body: UpdateActionsBody): Promise<UpdateResult> {
    return this.mutate(inst, (s) => {
      for (const key of Object.keys(s.actions) as Array<keyof InstanceSettings['actions']>) {
        const v = body[key]
        if (typeof v === 'boolean') s.actions[key] = v
      }
    })
  }

  async updateActiveDays(inst: Instance, body: UpdateActiveDaysBody): Promise<UpdateResult> {
    return this.mutate(inst, (s) => {
      for (const day of Object.keys(s.active_days) as Array<keyof InstanceSettings['active_days']>) {
        const v = body[day]
        if (typeof v === 'boolean') s.active_days[day] = v
      }
    })
  }

  async updateActiveHours(inst: Instance, body: UpdateActiveHoursBody): Promise<UpdateResult> {
    const always = [body.from === 'always', body.to === 'always']
    if (always[0] !== always[1]) {
      const field = always[0] ? 'to' : 'from'
      throw invalid(field, 'must be always too when the other bound is always (always means all day)')
    }
    return this.mutate(inst, (s) => {
      s.active_hours = { from: body.from, to: body.to }
    })
  }

  async setWebhook(inst: Instance, body: SetWebhookBody) {
    await this.mutate(inst, (s) => {
      s.webhook.url = body.webhook_url
      s.webhook.events = [...new Set(body.events)]
      s.webhook.requestConfig = body.requestConfig ?? {}
    })
    const w = inst.settings.webhook
    return { webhook_url: w.url, events: w.events, requestConfig: w.requestConfig, secret: w.secret, send_webhook: inst.settings.actions.send_webhook }
  }

  /** Applies `fn` to the settings; bumps updatedAt and __v only when something changed. */
  private async mutate(inst: Instance, fn: (s: InstanceSettings) => void): Promise<UpdateResult> {
    const before = JSON.stringify(inst.settings)
    const next = structuredClone(inst.settings)
    fn(next)
    const modified = JSON.stringify(next) !== before
    if (modified) {
      await this.deps.storage.config.update(() => {
        inst.settings = next
        inst.updatedAt = new Date().toISOString()
        inst.__v += 1
      })
      this.deps.events.emit('changed', { instanceId: inst._id, what: 'instance' })
    }
    return updateResult(modified)
  }
}
