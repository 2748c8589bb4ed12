/**
 * Stored records and their API shapes (docs/api-seed.md §2, docs/design.md §5–§9). One schema per record gives the
 * TypeScript type (`Static`), the OpenAPI component and, where a record is input, the validation.
 */
import Type, { type Static } from 'typebox'
import { AssistantOutcome } from './assistant'

/** Record bookkeeping fields of docs/api-seed.md §2.2. */
const Bookkeeping = {
  _id: Type.String({ description: 'Record identifier (24 hex digits).' }),
  createdAt: Type.String({ description: 'ISO 8601 UTC timestamp with milliseconds.' }),
  updatedAt: Type.String({ description: 'ISO 8601 UTC timestamp; changes on update.' }),
  __v: Type.Integer({ description: 'Revision counter, 0 on a new record.' })
}

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

export const WEEK_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
export type WeekDay = (typeof WEEK_DAYS)[number]

export const ActiveDays = Type.Object(
  Object.fromEntries(WEEK_DAYS.map((d) => [d, Type.Boolean()])) as Record<WeekDay, ReturnType<typeof Type.Boolean>>
)
export type ActiveDays = Static<typeof ActiveDays>

export const ActiveHours = Type.Object({
  from: Type.String({ format: 'active-hours' }),
  to: Type.String({ format: 'active-hours' })
})
export type ActiveHours = Static<typeof ActiveHours>

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

/**
 * Opt-out (issue 14 §1): a customer whose whole message is an opt-out word is marked opted out (no
 * broadcast or scheduled message reaches them) and told once; an opt-in word reverses it.
 */
export const OptOutSettings = Type.Object({
  optout_keyword: Type.String({ maxLength: 200, description: 'Comma-separated words; the whole message must be one of them (any case). Empty = off.' }),
  optin_keyword: Type.String({ maxLength: 200 }),
  optout_reply: Type.String({ maxLength: 1000 }),
  optin_reply: Type.String({ maxLength: 1000 })
})
export type OptOutSettings = Static<typeof OptOutSettings>
export const DEFAULT_OPT_OUT: OptOutSettings = {
  optout_keyword: 'STOP,UNSUBSCRIBE',
  optin_keyword: 'START,SUBSCRIBE',
  optout_reply: 'You will get no more messages from us. Write START to hear from us again.',
  optin_reply: 'Welcome back! You will hear from us again. Write STOP to stop.'
}

/** The default words and replies in the bot's language (`bot_lang`'s first two letters); English STOP/START always work. */
const OPT_OUT_BY_LANG: Record<string, OptOutSettings> = {
  es: {
    optout_keyword: 'STOP,BAJA,PARAR,UNSUBSCRIBE',
    optin_keyword: 'START,ALTA,SUBSCRIBE',
    optout_reply: 'No recibirás más mensajes nuestros. Escribe ALTA para volver a recibirlos.',
    optin_reply: '¡Bienvenido de nuevo! Volverás a recibir nuestros mensajes. Escribe BAJA para dejar de recibirlos.'
  },
  pt: {
    optout_keyword: 'STOP,PARAR,SAIR,UNSUBSCRIBE',
    optin_keyword: 'START,VOLTAR,SUBSCRIBE',
    optout_reply: 'Você não receberá mais mensagens nossas. Escreva VOLTAR para recebê-las de novo.',
    optin_reply: 'Bem-vindo de volta! Você voltará a receber nossas mensagens. Escreva PARAR para parar.'
  },
  fr: {
    optout_keyword: 'STOP,ARRET,ARRÊT,DESABONNER,UNSUBSCRIBE',
    optin_keyword: 'START,ABONNER,SUBSCRIBE',
    optout_reply: 'Vous ne recevrez plus de messages de notre part. Écrivez ABONNER pour en recevoir à nouveau.',
    optin_reply: 'Bon retour ! Vous recevrez à nouveau nos messages. Écrivez STOP pour arrêter.'
  },
  de: {
    optout_keyword: 'STOP,STOPP,ABMELDEN,UNSUBSCRIBE',
    optin_keyword: 'START,ANMELDEN,SUBSCRIBE',
    optout_reply: 'Sie erhalten keine Nachrichten mehr von uns. Schreiben Sie START, um wieder welche zu erhalten.',
    optin_reply: 'Willkommen zurück! Sie erhalten wieder unsere Nachrichten. Schreiben Sie STOPP zum Abmelden.'
  },
  it: {
    optout_keyword: 'STOP,BASTA,DISISCRIVI,UNSUBSCRIBE',
    optin_keyword: 'START,ISCRIVI,SUBSCRIBE',
    optout_reply: 'Non riceverai più messaggi da noi. Scrivi ISCRIVI per riceverli di nuovo.',
    optin_reply: 'Bentornato! Riceverai di nuovo i nostri messaggi. Scrivi STOP per smettere.'
  }
}

/** The opt-out words and replies an instance starts with, in its `bot_lang` (English when not listed). */
export function defaultOptOut(botLang: string): OptOutSettings {
  return OPT_OUT_BY_LANG[botLang.slice(0, 2).toLowerCase()] ?? DEFAULT_OPT_OUT
}

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
 * Opening hours beyond the seed's one window (issue 13 §3, docs/design.md §16): several windows on a
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

/**
 * The send governor (issue 14 §5, docs/design.md §18): how fast broadcasts and scheduled messages
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

/**
 * How long an instance keeps its history (issue 25 §2, docs/design.md §14): forever by default, or
 * N days; the media files kept in the data dir may go sooner than the text.
 */
export const RetentionSettings = Type.Object({
  days: Type.Union([Type.Integer({ minimum: 1, maximum: 36_500 }), Type.Null()], { description: 'Messages older than this many days are deleted (daily); null = keep forever.' }),
  media_days: Type.Union([Type.Integer({ minimum: 1, maximum: 36_500 }), Type.Null()], {
    description: 'Downloaded media files older than this many days are deleted (the message stays; the file can be downloaded again while WhatsApp keeps it); null = as long as the message.'
  })
})
export type RetentionSettings = Static<typeof RetentionSettings>
export const DEFAULT_RETENTION: RetentionSettings = { days: null, media_days: null }

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

export const Attachment = Type.Object({
  _id: Type.String(),
  client_id: Type.String(),
  instance_id: Type.String(),
  filename: Type.String(),
  mimetype: Type.String(),
  size: Type.Integer({ description: 'Bytes.' }),
  sha256: Type.String({ description: 'Hex digest of the file.' }),
  createdAt: Type.String()
})
export type Attachment = Static<typeof Attachment>

export const MESSAGE_SOURCES = ['api', 'bot', 'desk', 'inbound', 'phone', 'broadcast', 'schedule'] as const
export type MessageSource = (typeof MESSAGE_SOURCES)[number]

/** A message log entry (docs/design.md §7). */
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

/**
 * What the bot did with an inbound message and why (docs/design.md §13 "Decision record"): shown under
 * the message in Test chat, returned by sandbox/inbound, kept in the log and sent in `onMessage`.
 */
export const BotDecisionRecord = Type.Object(
  {
    action: Type.Union([
      Type.Literal('intent'),
      Type.Literal('survey'),
      Type.Literal('default'),
      Type.Literal('away'),
      Type.Literal('option'),
      Type.Literal('opt_out'),
      Type.Literal('opt_in'),
      Type.Literal('assistant'),
      Type.Literal('none')
    ]),
    reason: Type.Optional(
      Type.String({
        description:
          'Why nothing was sent (action none): outside_hours, paused, handoff_requested, reply_msgs_off, group_off, backlog, own_message, broadcast, no_match, default_sent_recently, survey_step_deleted.'
      })
    ),
    ref: Type.Optional(Type.String({ description: 'What answered: the intent title, the survey title and step, or the assistant’s model.' })),
    assistant: Type.Optional(AssistantOutcome)
  },
  { description: 'What the bot did with this message and why.' }
)
export type BotDecisionRecord = Static<typeof BotDecisionRecord>

/**
 * Who sent an outbound message (issue 27 §1): a person (the owner or a staff member), a script's API
 * key, the bot, outreach, or the owner on the phone. `id` names the staff member or key.
 */
export const SentBy = Type.Object(
  {
    kind: Type.Union([Type.Literal('owner'), Type.Literal('staff'), Type.Literal('key'), Type.Literal('bot'), Type.Literal('broadcast'), Type.Literal('schedule'), Type.Literal('phone')]),
    id: Type.Optional(Type.String()),
    name: Type.String()
  },
  { description: 'Who sent it (outbound messages): a person, a script key, the bot, outreach or the phone.' }
)
export type SentBy = Static<typeof SentBy>

/** An edited message (docs/baileys.md "Edits"): `text` is the latest; the earlier texts are kept, oldest first. */
export const MessageEdited = Type.Object(
  {
    at: Type.Integer({ description: 'Epoch ms of the latest edit.' }),
    history: Type.Array(Type.Object({ text: Type.String(), at: Type.Integer({ description: 'Epoch ms this text was written.' }) }), {
      description: 'The earlier texts, oldest first: the original is the first.'
    })
  },
  { description: 'The message was edited after it was sent.' }
)
export type MessageEdited = Static<typeof MessageEdited>

/** A message deleted for everyone: its text, media and edit history are gone; this record stays. */
export const MessageDeleted = Type.Object(
  {
    at: Type.Integer({ description: 'Epoch ms of the deletion.' }),
    by: Type.Union([Type.Literal('customer'), Type.Literal('phone')], { description: 'customer: the person who wrote it; phone: the owner, on the phone or another linked device.' })
  },
  { description: 'Deleted for everyone: text and media were removed from this app (storage and search).' }
)
export type MessageDeleted = Static<typeof MessageDeleted>

export const MessageReaction = Type.Object({
  by: Type.String({ description: 'Who reacted: their JID, or "me" for the shop (the app or the phone).' }),
  fromMe: Type.Boolean(),
  emoji: Type.String(),
  at: Type.Integer({ description: 'Epoch ms.' })
})
export type MessageReaction = Static<typeof MessageReaction>

/** The votes on one of the shop's polls. */
export const PollTally = Type.Object(
  {
    selectable: Type.Integer({ description: 'How many options a voter may choose (0: any).' }),
    options: Type.Array(Type.Object({ name: Type.String(), votes: Type.Integer() }), { description: 'Every option in the poll’s order, with its count.' }),
    voters: Type.Array(Type.Object({ by: Type.String({ description: 'The voter’s JID.' }), options: Type.Array(Type.String()), at: Type.Integer() }), {
      description: 'Each voter’s latest choice (a changed vote replaces the earlier one; an empty choice is not listed).'
    })
  },
  { description: 'A poll the shop sent: its options and the votes counted so far.' }
)
export type PollTally = Static<typeof PollTally>

export const LoggedMessage = Type.Object({
  id: Type.String(),
  chatId: Type.String(),
  fromMe: Type.Boolean(),
  pushName: Type.Union([Type.String(), Type.Null()]),
  type: Type.String(),
  text: Type.String(),
  timestamp: Type.Integer({ description: 'Epoch milliseconds.' }),
  status: Type.String({
    description:
      'Inbound: RECEIVED. Sent: PENDING → SERVER_ACK → DELIVERY_ACK → READ (PLAYED for a voice note), or ERROR with error_code; each change is an onMessageStatus webhook event.'
  }),
  error_code: Type.Optional(Type.String({ description: "With status ERROR: the server's code, e.g. 463 (the account may not start this chat) or 479." })),
  source: Type.Enum(MESSAGE_SOURCES, {
    description: 'api: a script; bot: the bot; desk: a person in this app; phone: the owner on the phone; inbound: the customer; broadcast / schedule: outreach (docs/design.md §18).'
  }),
  senderId: Type.Optional(Type.String()),
  senderPn: Type.Optional(Type.String()),
  senderLid: Type.Optional(Type.String()),
  media: Type.Optional(
    Type.Object(
      { mimetype: Type.String(), fileName: Type.Optional(Type.String()), size: Type.Optional(Type.Integer()) },
      { description: 'Inbound media: fetch the bytes from GET /chatapp/messages/{id}/media.' }
    )
  ),
  location: Type.Optional(
    Type.Object({ latitude: Type.Number(), longitude: Type.Number() }, { description: 'A location message: its coordinates (the name or address is the text).' })
  ),
  options: Type.Optional(
    Type.Array(
      Type.Object({ title: Type.String(), id: Type.Optional(Type.String()) }),
      { description: 'Numbered options of a buttons/list message sent as text (docs/design.md §6).' }
    )
  ),
  bot: Type.Optional(BotDecisionRecord),
  sent_by: Type.Optional(SentBy),
  edited: Type.Optional(MessageEdited),
  deleted: Type.Optional(MessageDeleted),
  reactions: Type.Optional(Type.Array(MessageReaction, { description: 'One per person who reacted (the latest emoji each); none: no reactions.' })),
  poll: Type.Optional(PollTally),
  username: Type.Optional(Type.String({ description: 'The sender’s WhatsApp username (without "@"), when WhatsApp told it: customers who hide their number.' }))
})
export type LoggedMessage = Static<typeof LoggedMessage>

/** A message log entry as the original service's `/message-log` answers it (issue 14 §6): the log entry with `_id`, its instance and an ISO time. */
export const MessageLogRecord = Type.Object({
  _id: Type.String({ description: 'The WhatsApp message id.' }),
  instance_id: Type.String(),
  ...Type.Omit(LoggedMessage, ['id']).properties,
  createdAt: Type.String({ format: 'date-time' })
})
export type MessageLogRecord = Static<typeof MessageLogRecord>

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
  taken_by: Type.Optional(Type.Union([SentBy, Type.Null()], { description: 'Who took the conversation over (issue 27): the person or key whose reply or pause it was.' }))
})
export type ChatPause = Static<typeof ChatPause>

/**
 * The desk's state of one conversation (issue 13 §1, docs/design.md §15 "Inbox"): up to which message
 * the owner has read it and whether it is resolved. A customer message newer than `resolved_at`
 * reopens it (derived when listed, so an inbound message costs no write here).
 */
export const ChatState = Type.Object({
  /** `<instance_id>:<chatId>`: one state per chat. */
  _id: Type.String(),
  instance_id: Type.String(),
  chatId: Type.String(),
  read_until: Type.Integer({ description: 'Epoch ms of the newest message the owner has read (0: none).' }),
  resolved_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Epoch ms of the resolve; null: open.' })
})
export type ChatState = Static<typeof ChatState>

/** A saved snippet the desk inserts by typing `/shortcut` (issue 13 §1). One list for the whole app. */
export const QuickReply = Type.Object({
  _id: Type.String(),
  shortcut: Type.String({ format: 'shortcut', description: 'Typed after "/" in the composer: lower-case letters, digits, _ and -.' }),
  text: Type.String({ minLength: 1, maxLength: 4096 }),
  createdAt: Type.String(),
  updatedAt: Type.String()
})
export type QuickReply = Static<typeof QuickReply>

/**
 * A contact (issue 14 §1, the original service's `/contact` shape plus labels, notes, opt-out and
 * when they last wrote). Made by hand or collected from conversations; `number` is digits only.
 */
export const Contact = Type.Object({
  _id: Type.String(),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  number: Type.String({ description: 'Phone number, digits only (country code first).' }),
  client_id: Type.String(),
  /** The instance it belongs to (created through, or collected by). */
  instance_id: Type.String(),
  group_id: Type.Union([Type.String(), Type.Null()], { description: 'Its contact group, or null.' }),
  channel: Type.Literal('whatsapp'),
  labels: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20 }),
  notes: Type.String({ maxLength: 2000 }),
  opted_out: Type.Boolean({ description: 'Asked not to get broadcasts or scheduled messages.' }),
  last_seen_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When they last wrote (to within an hour).' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  __v: Type.Integer()
})
export type Contact = Static<typeof Contact>

/** The colours a label may have (Mantine's palette names; the UI paints them). */
export const LABEL_COLORS = ['blue', 'green', 'orange', 'red', 'grape', 'teal', 'yellow', 'pink', 'indigo', 'cyan', 'lime', 'violet', 'gray'] as const

/** A label (issue 14 §1): a name and a colour, put on contacts and so on their conversations. Account-wide. */
export const Label = Type.Object({
  _id: Type.String(),
  name: Type.String({ minLength: 1, maxLength: 40 }),
  color: Type.Enum(LABEL_COLORS),
  createdAt: Type.String(),
  updatedAt: Type.String()
})
export type Label = Static<typeof Label>

/** A contact group (issue 14 §2, the original service's `/contact_groups` shape). */
export const ContactGroup = Type.Object({
  _id: Type.String(),
  title: Type.String({ minLength: 1, maxLength: 100 }),
  is_default: Type.Boolean(),
  client_id: Type.String(),
  instance_id: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  __v: Type.Integer()
})
export type ContactGroup = Static<typeof ContactGroup>

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
 * A broadcast (issue 14 §3, the original service's `/broadcast` record plus `skipped`, `status_reason`
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

/** A scheduled message (issue 14 §4): one-off or recurring, at a local time in the instance's zone. */
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
