/**
 * Records of instances: the instance, its settings, its connection state and webhook settings, and
 * WhatsApp's outreach limits on its number (docs/api-seed.md §2, docs/design.md §5, §11).
 */
import Type, { type Static } from 'typebox'
import { AwaySettings, HandoffSettings, OpeningHours } from './bot'
import { ActiveDays, ActiveHours, Bookkeeping } from './common'
import { OptOutSettings } from './contacts'
import { RetentionSettings } from './data'
import { OutreachSettings } from './outreach'

export const ConnectionStatus = Type.Union([
  Type.Literal('DISCONNECTED'),
  Type.Literal('CONNECTING'),
  Type.Literal('QR'),
  Type.Literal('CONNECTED'),
  Type.Literal('LOGGED_OUT')
])
/** An instance's connection state (docs/design.md §5); the channels' `ConnectionState` is this type. */
export type ConnectionStatus = Static<typeof ConnectionStatus>

export const BotActions = Type.Object({
  send_default_msg: Type.Boolean(),
  reply_group_msgs: Type.Boolean(),
  reply_unread_msgs: Type.Boolean(),
  reply_msgs: Type.Boolean(),
  multi_device: Type.Boolean(),
  send_webhook: Type.Boolean()
})
export type BotActions = Static<typeof BotActions>

/** The webhook events (docs/design.md §11, §15) and what each reports: the API docs and the UI's checkboxes read this. */
export const WEBHOOK_EVENT_INFO = {
  onMessage: 'an inbound message',
  onAnyMessage: 'every message, inbound and outbound',
  onConnection: 'a connection state change',
  onMessageStatus: 'a sent message delivered, read or refused',
  onChatStatus: 'a conversation resolved, reopened or read at the desk',
  onHandoff: 'the bot paused for a chat (a person took over) or handed it back',
  onAssignment: 'a conversation assigned to a person, or unassigned',
  onMessageEdit: 'a message edited (by the customer, or by the owner on the phone)',
  onMessageDelete: 'a message deleted for everyone (its content is removed here too)',
  onMessageReaction: 'a reaction added, changed or removed on a message (either side)',
  onPollVote: "a vote on one of the shop's polls (a changed vote replaces the voter's earlier one)"
} as const
export type WebhookEvent = keyof typeof WEBHOOK_EVENT_INFO
export const WEBHOOK_EVENTS = Object.keys(WEBHOOK_EVENT_INFO) as WebhookEvent[]

export const RequestConfig = Type.Object(
  {
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 }))
  },
  { additionalProperties: false }
)
export type RequestConfig = Static<typeof RequestConfig>

export const WebhookSettings = Type.Object({
  url: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String()),
  requestConfig: RequestConfig,
  secret: Type.String({ description: 'Standard Webhooks signing secret (whsec_…).' })
})
export type WebhookSettings = Static<typeof WebhookSettings>

export const InstanceSettings = Type.Object({
  bot_number: Type.Union([Type.String(), Type.Null()]),
  bot_name: Type.String(),
  status: ConnectionStatus,
  bot_timezone: Type.String(),
  bot_lang: Type.String(),
  default_msg: Type.String(),
  actions: BotActions,
  active_days: ActiveDays,
  active_hours: ActiveHours,
  access_token: Type.String(),
  channel: Type.Union([Type.Literal('baileys'), Type.Literal('sandbox')]),
  webhook: WebhookSettings,
  user: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()]),
  /** Absent on instances made before hand-off existed: {@link DEFAULT_HANDOFF} applies. */
  handoff: Type.Optional(HandoffSettings),
  /** Absent on older instances: {@link DEFAULT_AWAY} applies (off). */
  away: Type.Optional(AwaySettings),
  /** Absent on older instances: {@link DEFAULT_OPT_OUT} applies. */
  opt_out: Type.Optional(OptOutSettings),
  /** Absent on older instances: {@link DEFAULT_OPENING_HOURS} applies (the seed's window only). */
  opening_hours: Type.Optional(OpeningHours),
  /** Absent on older instances: {@link DEFAULT_OUTREACH} applies. */
  outreach: Type.Optional(OutreachSettings),
  /** Absent on older instances: {@link DEFAULT_RETENTION} applies (keep forever). */
  retention: Type.Optional(RetentionSettings),
  last_connected_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the instance last reached CONNECTED.' }))
})
export type InstanceSettings = Static<typeof InstanceSettings>

export const Instance = Type.Object({
  ...Bookkeeping,
  user_id: Type.String(),
  session_id: Type.String(),
  settings: InstanceSettings
})
export type Instance = Static<typeof Instance>

/**
 * What a service needs of an instance to act for it: its id and owner (`user_id`, the `client_id` of
 * the records it makes), plus the fields `K` it reads (e.g. `InstanceRef<'settings'>`).
 */
export type InstanceRef<K extends keyof Instance = never> = Pick<Instance, '_id' | 'user_id' | K>

/** WhatsApp's outreach limits on an instance's number (docs/design.md §13 platform signals). */
export const SendLimitsSchema = Type.Object({
  capping: Type.Optional(
    Type.Object({
      status: Type.Union([Type.Literal('NONE'), Type.Literal('FIRST_WARNING'), Type.Literal('SECOND_WARNING'), Type.Literal('CAPPED')]),
      used: Type.Optional(Type.Integer()),
      total: Type.Optional(Type.Integer()),
      until: Type.Optional(Type.String({ description: 'End of the cycle, ISO 8601.' }))
    })
  ),
  reachout_lock: Type.Optional(Type.Object({ active: Type.Boolean(), until: Type.Optional(Type.String()), type: Type.Optional(Type.String()) }))
})

export type SendLimits = Static<typeof SendLimitsSchema>
