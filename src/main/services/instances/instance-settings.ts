/**
 * An instance's bot settings (docs/api-seed.md §4.3, docs/design.md §5): general, actions, active days
 * and hours, webhook. Each update answers whether it changed anything and the instance as it is now;
 * the seed's wire shape (`{acknowledged, modifiedCount…}`) is the HTTP face's business.
 */
import { produce, type Draft } from 'immer'
import { isoNow, type Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import type { InstanceRepo } from '../../store/repos'
import { DEFAULT_AWAY, DEFAULT_HANDOFF, DEFAULT_OPENING_HOURS, defaultOptOut, DEFAULT_OUTREACH, DEFAULT_RETENTION, type RetentionSettings, type OptOutSettings, type OutreachSettings, type AwaySettings, type HandoffSettings, type Instance, type InstanceSettings, type OpeningHours, type WeekDay } from '../../../shared/schemas/records'
import type { SetWebhookBody, UpdateActionsBody, UpdateActiveDaysBody, UpdateActiveHoursBody, UpdateGeneralBody } from '../../../shared/schemas/operations'
import { invalid, notFound } from '../../errors'
import type { SettingsChangeT } from '../../../shared/operations/results'

/** What a settings update did (the operation table's result shape). */
export type SettingsChange = SettingsChangeT

export class InstanceSettingsService {
  constructor(
    private readonly instances: InstanceRepo,
    private readonly events: CoreEventBus,
    private readonly clock: Clock,
    /** Refuses a webhook URL the app must never call (its own API): 400 naming `field`. */
    readonly checkWebhookUrl: (url: string | null, field?: string) => Promise<void> = async () => {}
  ) {}

  updateGeneral(instanceId: string, body: Omit<UpdateGeneralBody, 'session_id' | 'access_token'>): Promise<SettingsChange> {
    return this.change(instanceId, (s) => {
      if (body.bot_name !== undefined) s.bot_name = body.bot_name
      if (body.bot_timezone !== undefined) s.bot_timezone = body.bot_timezone.trim()
      if (body.bot_lang !== undefined) s.bot_lang = Intl.getCanonicalLocales(body.bot_lang)[0]!
      if (typeof body.default_msg === 'string') s.default_msg = body.default_msg
      if (typeof body.default_msg === 'boolean') s.actions.send_default_msg = body.default_msg
    })
  }

  updateActions(instanceId: string, body: Omit<UpdateActionsBody, 'session_id' | 'access_token'>): Promise<SettingsChange> {
    return this.change(instanceId, (s) => {
      for (const key of Object.keys(s.actions) as Array<keyof InstanceSettings['actions']>) {
        const v = body[key]
        if (typeof v === 'boolean') s.actions[key] = v
      }
    })
  }

  updateActiveDays(instanceId: string, body: Omit<UpdateActiveDaysBody, 'session_id' | 'access_token'>): Promise<SettingsChange> {
    return this.change(instanceId, (s) => {
      for (const day of Object.keys(s.active_days) as Array<keyof InstanceSettings['active_days']>) {
        const v = body[day]
        if (typeof v === 'boolean') s.active_days[day] = v
      }
    })
  }

  updateActiveHours(instanceId: string, body: Omit<UpdateActiveHoursBody, 'session_id' | 'access_token'>): Promise<SettingsChange> {
    const always = [body.from === 'always', body.to === 'always']
    if (always[0] !== always[1]) {
      const field = always[0] ? 'to' : 'from'
      throw invalid(field, 'must be always too when the other bound is always (always means all day)')
    }
    return this.change(instanceId, (s) => {
      s.active_hours = { from: body.from, to: body.to }
    })
  }

  async setWebhook(instanceId: string, body: Omit<SetWebhookBody, 'session_id' | 'access_token'>): Promise<SettingsChange> {
    await this.checkWebhookUrl(body.webhook_url)
    return this.change(instanceId, (s) => {
      s.webhook.url = body.webhook_url
      s.webhook.events = [...new Set(body.events)]
      s.webhook.requestConfig = body.requestConfig ?? {}
    })
  }

  /** Changes the hand-off settings (docs/design.md §13); answers them as they are now, defaults filled in. */
  async updateHandoff(instanceId: string, body: Partial<HandoffSettings>): Promise<HandoffSettings> {
    const { instance } = await this.change(instanceId, (s) => {
      s.handoff = { ...DEFAULT_HANDOFF, ...s.handoff, ...body }
    })
    return { ...DEFAULT_HANDOFF, ...instance.settings.handoff }
  }

  /** Changes the away message (docs/design.md §13); answers it as it is now, defaults filled in. */
  async updateAway(instanceId: string, body: Partial<AwaySettings>): Promise<AwaySettings> {
    const { instance } = await this.change(instanceId, (s) => {
      s.away = { ...DEFAULT_AWAY, ...s.away, ...body }
    })
    return { ...DEFAULT_AWAY, ...instance.settings.away }
  }

  /** How long the instance keeps its history (docs/design.md §20 "History"); answers the whole setting. */
  async updateRetention(instanceId: string, body: Partial<RetentionSettings>): Promise<RetentionSettings> {
    const { instance } = await this.change(instanceId, (s) => {
      s.retention = { ...DEFAULT_RETENTION, ...s.retention, ...body }
    })
    return { ...DEFAULT_RETENTION, ...instance.settings.retention }
  }

  /** The send governor's settings (docs/design.md §18); 400 when the gaps are the wrong way round. */
  async updateOutreach(instanceId: string, body: Partial<OutreachSettings>): Promise<OutreachSettings> {
    const current = { ...DEFAULT_OUTREACH, ...this.instances.find(instanceId)?.settings.outreach }
    const next = { ...current, ...body }
    if (next.min_gap_seconds > next.max_gap_seconds) throw invalid('min_gap_seconds', `must not be above max_gap_seconds (${next.max_gap_seconds})`)
    await this.change(instanceId, (s) => {
      s.outreach = next
    })
    return next
  }

  /** Changes the opt-out words and replies (docs/design.md §17 "Opt-out"); answers them as they are now, defaults filled in. */
  async updateOptOut(instanceId: string, body: Partial<OptOutSettings>): Promise<OptOutSettings> {
    const { instance } = await this.change(instanceId, (s) => {
      s.opt_out = { ...defaultOptOut(s.bot_lang), ...s.opt_out, ...body }
    })
    return { ...defaultOptOut(instance.settings.bot_lang), ...instance.settings.opt_out }
  }

  /**
   * Sets per-day windows and/or holidays (docs/design.md §16 "Opening hours"). A day given an empty list falls back to
   * `active_hours`; holidays are kept sorted. Answers the whole model.
   */
  async updateOpeningHours(instanceId: string, body: Partial<OpeningHours>): Promise<OpeningHours> {
    const { instance } = await this.change(instanceId, (s) => {
      const current = { ...DEFAULT_OPENING_HOURS, ...s.opening_hours }
      const ranges = { ...current.ranges, ...body.ranges }
      for (const day of Object.keys(ranges) as WeekDay[]) if (ranges[day]?.length === 0) delete ranges[day]
      s.opening_hours = { ranges, holidays: [...(body.holidays ?? current.holidays)].sort() }
    })
    return { ...DEFAULT_OPENING_HOURS, ...instance.settings.opening_hours }
  }

  /** Applies `recipe` to the settings; bumps updatedAt and __v only when something changed. One write. */
  async change(instanceId: string, recipe: (s: Draft<InstanceSettings>) => void): Promise<SettingsChange> {
    const before = this.instances.find(instanceId)
    if (!before) throw notFound('Instance')
    const changed = produce(before as Instance, (draft) => recipe(draft.settings))
    if (changed === before) return { modified: false, instance: before }
    const instance = await this.instances.put(
      produce(changed, (d) => {
        d.updatedAt = isoNow(this.clock)
        d.__v += 1
      })
    )
    this.events.emit('changed', { instanceId, what: 'instance' })
    return { modified: true, instance }
  }
}
