/**
 * Records of messages: the message log entry and what hangs on it (who sent it, the bot's decision,
 * edits, deletion, reactions, poll votes) and attachments (docs/design.md §7).
 */
import Type, { type Static } from 'typebox'
import { AssistantOutcome } from '../assistant'

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
 * Who sent an outbound message (docs/design.md §21 "`sent_by`"): a person (the owner or a staff member), a script's API
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

/** A message log entry (docs/design.md §7). */
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

/** A message log entry as the original service's `/message-log` answers it (docs/design.md §17): the log entry with `_id`, its instance and an ISO time. */
export const MessageLogRecord = Type.Object({
  _id: Type.String({ description: 'The WhatsApp message id.' }),
  instance_id: Type.String(),
  ...Type.Omit(LoggedMessage, ['id']).properties,
  createdAt: Type.String({ format: 'date-time' })
})
export type MessageLogRecord = Static<typeof MessageLogRecord>
