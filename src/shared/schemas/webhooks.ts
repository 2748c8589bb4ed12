/**
 * Webhook deliveries (docs/design.md §11, extension): the event body sent to the receiver, the delivery
 * record kept in the outbox, and the deliveries API's query. One schema gives the type, the OpenAPI
 * component and the validation.
 */
import Type, { type Static } from 'typebox'
import { Credentials } from './operations'
import { WEBHOOK_EVENTS } from './records'

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const
export const DeliveryStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')],
  { description: 'pending: queued or waiting for a retry; delivered: the receiver answered 2xx; failed: gave up (4xx, or 24 h of retries) — retry by hand.' }
)
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** The JSON body POSTed to the webhook URL. */
export const WebhookPayload = Type.Object(
  {
    event: Type.String({ description: WEBHOOK_EVENTS.join(', ') + '.' }),
    instance_id: Type.String(),
    session_id: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Message events: the message log entry (id, chatId, fromMe, pushName, type, text, timestamp in epoch ms, status, source, senderId, senderPn, senderLid). onMessageStatus: the sent message with its new status (SERVER_ACK, DELIVERY_ACK, READ, PLAYED, or ERROR with error_code). onConnection: {state, previous, reason}. onChatStatus: {chatId, status (open, resolved, read), by}. onHandoff: {chatId, pause} (pause null: handed back to the bot). onMessageEdit: the entry with its new text, `edited` and `previousText`. onMessageDelete: the entry as kept (no text or media, `deleted`). onMessageReaction: {messageId, chatId, by, fromMe, emoji ("" removed), at, message}. onPollVote: {pollId, chatId, by, fromMe, selected, at, poll, message}. Message events carry `username` when the sender has one.'
    }),
    timestamp: Type.String({ description: 'When the event happened, ISO 8601 UTC.' })
  },
  { description: 'Webhook request body (docs/design.md §11).' }
)
export type WebhookPayload = Static<typeof WebhookPayload>

/** One delivery of one event to one URL. */
export const WebhookDelivery = Type.Object({
  id: Type.String({ description: 'Delivery id; also the webhook-id header, the same on every attempt (deduplicate on it).' }),
  instance_id: Type.String(),
  event: Type.String(),
  url: Type.String(),
  payload: WebhookPayload,
  status: DeliveryStatus,
  attempts: Type.Integer({ description: 'Attempts made so far.' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  last_status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last answer, null when none arrived.' }),
  next_attempt_at: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601; null unless pending.' }),
  created_at: Type.String(),
  delivered_at: Type.Union([Type.String(), Type.Null()])
})
export type WebhookDelivery = Static<typeof WebhookDelivery>

export const DeliveriesQuery = Type.Object({
  ...Credentials,
  status: Type.Optional(DeliveryStatus),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 }))
})
export type DeliveriesQuery = Static<typeof DeliveriesQuery>

/** Filter of {@link WebhookDelivery} lists (the service's form of the query). */
export interface DeliveryFilter {
  status?: DeliveryStatus
  /** Newest first, at most this many (default 50). */
  limit?: number
}
