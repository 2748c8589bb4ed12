/**
 * Records of the bot: intents, survey steps and their runs, what the bot did, and the settings of
 * hand-off, the away message and opening hours (docs/design.md §9, §13, §16).
 */
import Type, { type Static } from 'typebox'
import { ActiveHours, Bookkeeping, WEEK_DAYS, type WeekDay } from './common'
import { SentBy } from './messages'
import { AssistantOutcome } from '../assistant'

/** Action object of docs/api-seed.md §2.5. Members are checked strictly: a typo is a 400, not a dead action. */
export const Action = Type.Object(
  {
    send_location: Type.Optional(
      Type.Object(
        {
          lat: Type.String({ format: 'decimal-degrees' }),
          lng: Type.String({ format: 'decimal-degrees' }),
          loc: Type.String({ description: 'Label of the place.' })
        },
        { additionalProperties: false }
      )
    ),
    send_contact: Type.Optional(
      Type.Object(
        { name: Type.String({ minLength: 1 }), number: Type.String({ minLength: 3 }) },
        { additionalProperties: false }
      )
    ),
    send_file: Type.Optional(Type.String({ minLength: 1, description: 'Attachment id.' })),
    send_photo: Type.Optional(Type.String({ minLength: 1, description: 'Attachment id of an image.' })),
    send_notification: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(Type.String({ format: 'email' })),
          chatapp_number: Type.Optional(Type.String({ minLength: 3 })),
          whatsapp_number: Type.Optional(Type.String({ minLength: 3, description: 'The original service’s name for chatapp_number; stored as chatapp_number.' }))
        },
        { additionalProperties: false }
      )
    ),
    add_to_group: Type.Optional(Type.String({ minLength: 1, description: 'Group JID or id.' })),
    start_survey: Type.Optional(Type.String({ minLength: 1, description: 'Survey step _id.' }))
  },
  { additionalProperties: false, description: 'Follow-up actions (docs/api-seed.md §2.5), run in this order.' }
)
export type Action = Static<typeof Action>

export const Intent = Type.Object({
  ...Bookkeeping,
  client_id: Type.String(),
  instance_id: Type.String(),
  title: Type.String(),
  keyword: Type.String({ description: 'Comma-separated trigger words.' }),
  reply: Type.String(),
  action: Type.Optional(Action)
})
export type Intent = Static<typeof Intent>

export const Survey = Type.Object({
  ...Bookkeeping,
  client_id: Type.String(),
  instance_id: Type.String(),
  title: Type.String({ description: 'Steps with the same title form one survey.' }),
  keyword: Type.String({
    description: 'First step: trigger words. Later steps: accepted answers (empty = any answer).'
  }),
  reply: Type.String({ description: "The step's question." }),
  sort_id: Type.Integer({ description: 'Orders the steps of a survey.' }),
  action: Type.Optional(Action),
  closing_msg: Type.Optional(
    Type.String({ maxLength: 4096, description: 'Sent when a run of the survey completes (the first step that has one counts). [name], [answer:N] (the answer to step N).' })
  )
})
export type Survey = Static<typeof Survey>

/** Hand-off to a person (docs/design.md §13). */
export const HandoffSettings = Type.Object({
  pause_minutes: Type.Integer({ minimum: 0, maximum: 10_080, description: 'How long a reply from the desk or the phone pauses the bot for that chat; 0 = never pause.' }),
  keyword: Type.String({ maxLength: 200, description: 'Words a customer writes to ask for a person (comma-separated, e.g. "agent,human"); empty = none.' }),
  notify: Type.Optional(
    Type.Object(
      { email: Type.Optional(Type.String({ format: 'email' })), chatapp_number: Type.Optional(Type.String({ minLength: 3 })) },
      { additionalProperties: false, description: 'Who hears that a customer asked for a person: a WhatsApp message from this instance and/or an e-mail (as the send_notification action). The desktop app also shows a notification.' }
    )
  ),
  burst_seconds: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 60, description: 'Customer messages that follow each other within this many seconds form one burst and get one bot answer (the first); 0 = answer each.' })
  )
})
export type HandoffSettings = Static<typeof HandoffSettings>
export const DEFAULT_HANDOFF: HandoffSettings = { pause_minutes: 30, keyword: '' }

/** The away message: sent outside active days/hours, at most once per contact per window (docs/design.md §13 "Hours"). */
export const AwaySettings = Type.Object({
  enabled: Type.Boolean(),
  message: Type.String({ minLength: 1, maxLength: 4096, description: 'Placeholders: [name] (the contact) and [next_open] (e.g. "tomorrow at 9:00"); spintax allowed.' })
})
export type AwaySettings = Static<typeof AwaySettings>
export const DEFAULT_AWAY: AwaySettings = {
  enabled: false,
  message: "Thanks for your message, [name]! We're closed right now and will answer when we open again [next_open]."
}

/**
 * Opening hours beyond the seed's one window (docs/design.md §16): several windows on a
 * day (`ranges`; a day without its own uses `active_hours`) and holidays (local `YYYY-MM-DD`, closed).
 * `active_days` stays the list of open days and `active_hours` the default window, so the seed's
 * routes remain views of this model.
 */
export const OpeningHours = Type.Object({
  ranges: Type.Partial(
    Type.Object(Object.fromEntries(WEEK_DAYS.map((d) => [d, Type.Array(ActiveHours, { maxItems: 6 })])) as Record<WeekDay, ReturnType<typeof Type.Array<typeof ActiveHours>>>),
    { description: 'Windows per weekday, e.g. monday: [{from: "9:00", to: "13:00"}, {from: "15:00", to: "19:00"}].' }
  ),
  holidays: Type.Array(Type.String({ format: 'date' }), { maxItems: 366, uniqueItems: true, description: 'Local dates (YYYY-MM-DD) the bot treats as closed.' })
})
export type OpeningHours = Static<typeof OpeningHours>
export const DEFAULT_OPENING_HOURS: OpeningHours = { ranges: {}, holidays: [] }

export const SurveyAnswer = Type.Object({
  step_id: Type.String(),
  question: Type.String(),
  answer: Type.String(),
  at: Type.String()
})
export type SurveyAnswer = Static<typeof SurveyAnswer>

/**
 * The bot paused for one chat because a person is handling it (docs/design.md §13 "Hand-off"):
 * a reply from the desk or the phone, a customer's hand-off keyword, or the owner by hand.
 */
export const ChatPause = Type.Object({
  /** `<instance_id>:<chatId>`: one pause per chat. */
  _id: Type.String(),
  instance_id: Type.String(),
  chatId: Type.String(),
  since: Type.String({ format: 'date-time' }),
  until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the bot answers again; null: until resumed by hand.' }),
  reason: Type.Union([Type.Literal('human_reply'), Type.Literal('manual'), Type.Literal('keyword'), Type.Literal('assistant')], {
    description: 'human_reply: a person answered; manual: paused by hand; keyword: the customer asked for a person; assistant: the assistant handed the chat over (docs/assistant.md).'
  }),
  by: Type.Union([Type.Literal('desk'), Type.Literal('phone'), Type.Literal('api'), Type.Literal('customer')]),
  taken_by: Type.Optional(Type.Union([SentBy, Type.Null()], { description: 'Who took the conversation over: the person or key whose reply or pause it was.' }))
})
export type ChatPause = Static<typeof ChatPause>

/** A survey run (docs/design.md §9). */
export const SurveyRun = Type.Object({
  _id: Type.String(),
  instance_id: Type.String(),
  survey_title: Type.String(),
  chatId: Type.String(),
  /** The contact answering (differs from chatId in groups). */
  contactId: Type.Optional(Type.String()),
  pushName: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('in_progress'), Type.Literal('completed'), Type.Literal('expired')]),
  current_step_id: Type.Union([Type.String(), Type.Null()]),
  answers: Type.Array(SurveyAnswer),
  startedAt: Type.String(),
  updatedAt: Type.String(),
  completedAt: Type.Union([Type.String(), Type.Null()]),
  /** The owner dealt with this response (the UI's checkbox). */
  handled: Type.Optional(Type.Boolean())
})
export type SurveyRun = Static<typeof SurveyRun>

/** One line of the bot's activity log: what a message triggered and how each action went. */
export const BotActivity = Type.Object({
  at: Type.String(),
  instance_id: Type.String(),
  chatId: Type.String(),
  messageId: Type.String(),
  matched: Type.String({ description: 'intent "…", survey "…" or default message' }),
  actions: Type.Array(Type.Object({ action: Type.String(), ok: Type.Boolean(), error: Type.Optional(Type.String()) })),
  /** An answer of the assistant: model, tokens, time and the knowledge it drew on (docs/assistant.md). */
  assistant: Type.Optional(AssistantOutcome)
})
export type BotActivity = Static<typeof BotActivity>
