/**
 * Records of outreach: broadcasts, scheduled messages, the sends the governor counts and its settings
 * (docs/design.md §18).
 */
import Type, { type Static } from 'typebox'
import { ActiveHours, WEEK_DAYS } from './common'

/**
 * The send governor (docs/design.md §18): how fast broadcasts and scheduled messages
 * leave this number. Bot and owner replies are not governed. Defaults and their sources: docs/design.md §18.
 */
export const OutreachSettings = Type.Object({
  daily_limit: Type.Integer({ minimum: 1, maximum: 1000, description: 'Outreach messages in any 24 hours once the number is warmed up (30 days or older).' }),
  hourly_limit: Type.Integer({ minimum: 1, maximum: 200, description: 'Outreach messages in any hour.' }),
  min_gap_seconds: Type.Integer({ minimum: 5, maximum: 3600, description: 'Shortest random gap between two outreach messages.' }),
  max_gap_seconds: Type.Integer({ minimum: 5, maximum: 7200, description: 'Longest random gap (each gap is drawn between the two; never fixed).' }),
  quiet_hours: Type.Union([ActiveHours, Type.Null()], { description: 'Local hours (bot_timezone) when no outreach leaves, e.g. {from: "21:00", to: "8:00"}; null = none.' }),
  number_since: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
    description: 'Since when the number has been used on WhatsApp (YYYY-MM-DD): the warm-up ramp reads its age. null = not declared, treated as a new number.'
  }),
  recipient_cooldown_hours: Type.Integer({ minimum: 0, maximum: 720, description: 'Hours between two outreach messages to the same person.' }),
  missed_run_grace_minutes: Type.Integer({ minimum: 0, maximum: 10_080, description: 'A scheduled run missed while the app was off is sent at start when at most this late, else skipped and reported.' })
})
export type OutreachSettings = Static<typeof OutreachSettings>
export const DEFAULT_OUTREACH: OutreachSettings = {
  daily_limit: 150,
  hourly_limit: 30,
  min_gap_seconds: 25,
  max_gap_seconds: 75,
  quiet_hours: { from: '21:00', to: '8:00' },
  number_since: null,
  recipient_cooldown_hours: 20,
  missed_run_grace_minutes: 60
}

/** What a broadcast or a scheduled message sends (the original service's `message`). */
export const OutreachMessage = Type.Object(
  {
    text: Type.Optional(Type.String({ maxLength: 4096, description: 'Spintax ({Hi|Hello}) and [name] (the contact) allowed.' })),
    attachments: Type.Optional(Type.Array(Type.String(), { maxItems: 10, description: 'Attachment ids of this instance.' })),
    location: Type.Optional(
      Type.Object({
        name: Type.Optional(Type.String({ maxLength: 200 })),
        lat: Type.String({ format: 'decimal-degrees' }),
        lng: Type.String({ format: 'decimal-degrees' })
      })
    ),
    contactId: Type.Optional(Type.String({ description: 'A contact record id (its vCard is sent), a number or a JID.' }))
  },
  { additionalProperties: false }
)
export type OutreachMessage = Static<typeof OutreachMessage>

export const BROADCAST_STATUSES = ['sending', 'paused', 'done', 'cancelled'] as const
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number]

/** A recipient waiting in a broadcast. */
export const BroadcastRecipient = Type.Object({ number: Type.String(), name: Type.Union([Type.String(), Type.Null()]), contact_id: Type.Union([Type.String(), Type.Null()]) })
export type BroadcastRecipient = Static<typeof BroadcastRecipient>

/**
 * A broadcast (docs/design.md §18 "Broadcasts", the original service's `/broadcast` record plus `skipped`, `status_reason`
 * and `current`). Each recipient is in exactly one of `pending`, `current`, `sent`, `failed`, `skipped`.
 */
export const Broadcast = Type.Object({
  _id: Type.String(),
  client_id: Type.String(),
  instance_id: Type.String(),
  send_type: Type.Union([Type.Literal('individual'), Type.Literal('group')]),
  /** individual: the numbers as sent (comma-separated); group: the contact group's id. */
  to: Type.String(),
  message: OutreachMessage,
  status: Type.Enum(BROADCAST_STATUSES),
  status_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is paused (by you, or by the governor: capping, a reach-out lock, failures).' }),
  sent: Type.Array(Type.Object({ number: Type.String(), message_id: Type.String(), at: Type.String() })),
  pending: Type.Array(BroadcastRecipient),
  failed: Type.Array(Type.Object({ number: Type.String(), reason: Type.String(), at: Type.String() })),
  skipped: Type.Array(Type.Object({ number: Type.String(), reason: Type.String() })),
  /** The recipient being sent to; after a crash it is not sent again (at most once), see docs/design.md §18. */
  current: Type.Union([Type.Object({ number: Type.String(), started_at: Type.String() }), Type.Null()]),
  /** The scheduled message that made it, if any. */
  schedule_id: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  __v: Type.Integer()
})
export type Broadcast = Static<typeof Broadcast>

export const SCHEDULE_REPEATS = ['none', 'daily', 'weekly', 'monthly'] as const

/** A scheduled message (docs/design.md §18 "Scheduled messages"): one-off or recurring, at a local time in the instance's zone. */
export const ScheduledMessage = Type.Object({
  _id: Type.String(),
  client_id: Type.String(),
  instance_id: Type.String(),
  title: Type.String({ maxLength: 100 }),
  /** Who gets it: a contact record, a contact group, or a chat (a number or a JID). */
  target: Type.Object({ type: Type.Union([Type.Literal('contact'), Type.Literal('group'), Type.Literal('chat')]), id: Type.String({ minLength: 1 }) }),
  message: OutreachMessage,
  repeat: Type.Enum(SCHEDULE_REPEATS),
  /** The first run, local wall-clock time in bot_timezone (`YYYY-MM-DDTHH:MM`); recurring runs keep its time of day (monthly: its day of month). */
  start_at: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$' }),
  /** weekly: the weekdays it runs on (default: the start's weekday). */
  days: Type.Array(Type.Enum(WEEK_DAYS), { uniqueItems: true }),
  active: Type.Boolean(),
  /** The next run (UTC); null when a one-off has run. */
  next_run_at: Type.Union([Type.String(), Type.Null()]),
  /** The latest runs, newest first (at most 20): sent (a broadcast was started), skipped (missed while off) or failed. */
  runs: Type.Array(Type.Object({ at: Type.String(), result: Type.Union([Type.Literal('sent'), Type.Literal('skipped'), Type.Literal('failed')]), detail: Type.String(), broadcast_id: Type.Union([Type.String(), Type.Null()]) })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  __v: Type.Integer()
})
export type ScheduledMessage = Static<typeof ScheduledMessage>

/** One outreach message the governor counted (quotas, cooldown), kept 48 hours. */
export const OutreachSend = Type.Object({ _id: Type.String(), instance_id: Type.String(), to: Type.String(), at: Type.Number() })
export type OutreachSend = Static<typeof OutreachSend>
