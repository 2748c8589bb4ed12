/**
 * The instances of the account (docs/design.md §3, §5): create, list, find, authenticate by
 * credentials, delete with everything they own.
 */
import { timingSafeEqual } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChannelKind } from '../../channel/types'
import { isoNow, type Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import { newObjectId, newSecret, newWebhookSecret } from '../../ids'
import type { Repositories, Stored } from '../../store/repos'
import { DEFAULT_AWAY, DEFAULT_HANDOFF, type Instance, type InstanceSettings } from '../../../shared/schemas/records'
import { AppError, invalid, notFound } from '../../errors'
import { OwnedElsewhereError } from '../cluster/worker-leases'
import type { SessionManager } from './session-manager'
import { DEFAULT_INSTANCE_NAME, newInstanceName } from './instance-names'

/** The friendly default reply (docs/design.md §5). */
export const DEFAULT_MSG = '{Hi|Hello} [name], thanks for your message! We will reply soon.'

function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

/** Settings of a new instance (docs/api-seed.md §2.7 defaults). */
export function defaultSettings(channel: ChannelKind): InstanceSettings {
  return {
    bot_number: null,
    bot_name: DEFAULT_INSTANCE_NAME,
    status: 'DISCONNECTED',
    bot_timezone: localTimeZone(),
    bot_lang: 'en',
    default_msg: DEFAULT_MSG,
    handoff: { ...DEFAULT_HANDOFF },
    away: { ...DEFAULT_AWAY },
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

export interface InstanceRegistryDeps {
  repos: Repositories
  sessions: SessionManager
  events: CoreEventBus
  clock: Clock
  defaultChannel: ChannelKind
  /** Where attachment bytes live (deleted with their instance). */
  attachmentsDir: string
  /** Where inbound media downloaded once live, per instance (deleted with it). */
  mediaDir: string
  accountId: () => string
}

export class InstanceRegistry {
  constructor(private readonly deps: InstanceRegistryDeps) {}

  /** Creates an instance in state DISCONNECTED, named `name` or automatically (./instance-names.ts). */
  async create(channel?: ChannelKind, name?: string): Promise<Stored<Instance>> {
    const now = isoNow(this.deps.clock)
    const settings = { ...defaultSettings(channel ?? this.deps.defaultChannel), bot_name: newInstanceName(this.list().map((i) => i.settings.bot_name)) }
    const inst = await this.deps.repos.instances.put({
      _id: newObjectId(),
      user_id: this.deps.accountId(),
      session_id: newSecret(18),
      settings: name?.trim() ? { ...settings, bot_name: name.trim() } : settings,
      createdAt: now,
      updatedAt: now,
      __v: 0
    })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'instance' })
    return inst
  }

  list(): readonly Stored<Instance>[] {
    return this.deps.repos.instances.all()
  }

  /** An instance by id; 404 when unknown. */
  get(instanceId: string): Stored<Instance> {
    const inst = this.deps.repos.instances.find(instanceId)
    if (!inst) throw notFound('Instance')
    return inst
  }

  /**
   * The instance the credentials name. Missing or non-string credentials are a 400 naming the field;
   * credentials that match no instance are a 401 (docs/design.md §3). The access token compares in
   * constant time; the session id, which only names the instance, is looked up.
   */
  authenticate(sessionId: unknown, accessToken: unknown): Stored<Instance> {
    if (sessionId === undefined || sessionId === null || sessionId === '') throw invalid('session_id', 'is required')
    if (typeof sessionId !== 'string') throw invalid('session_id', 'must be a string')
    if (accessToken === undefined || accessToken === null || accessToken === '') throw invalid('access_token', 'is required')
    if (typeof accessToken !== 'string') throw invalid('access_token', 'must be a string')
    const inst = this.deps.repos.instances.bySession(sessionId)
    if (!inst || !safeEqual(inst.settings.access_token, accessToken)) {
      throw new AppError('UNAUTHORIZED', 'Invalid session_id or access_token')
    }
    return inst
  }

  /**
   * Deletes the instance and everything it owns (docs/design.md §5). 404 when unknown; 409
   * (OwnedElsewhereError) when another worker of the database runs it (docs/design.md §22).
   */
  async delete(instanceId: string): Promise<void> {
    const inst = this.get(instanceId)
    await this.deps.sessions.logout(inst._id).catch((err: unknown) => {
      // Database mode: another worker runs its socket; deleting it here would leave that socket running.
      if (err instanceof OwnedElsewhereError) throw err
    })
    const { repos } = this.deps
    // The database first (one transaction), then the configuration: a crash in between leaves an
    // instance with no data, which a second delete finishes, never data without an instance.
    const attachmentFiles = await repos.customerData.removeInstance(inst._id)
    await repos.instances.remove(inst._id)
    await this.deps.sessions.forget(inst._id)
    await Promise.all([
      rm(join(this.deps.mediaDir, inst._id), { recursive: true, force: true }),
      ...attachmentFiles.map((id) => rm(join(this.deps.attachmentsDir, id), { force: true }))
    ])
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'deleted' })
  }
}
