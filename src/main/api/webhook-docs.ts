/**
 * The OpenAPI `webhooks` section (docs/design.md §16 "OpenAPI"): one entry per webhook event (docs/design.md §11, §15)
 * with the body the app POSTs, its `data` per event, and the Standard Webhooks signing headers.
 */
import type { OpenAPIV3_2 } from '@fastify/swagger'
import Type, { type TSchema } from 'typebox'
import { ChatPause, LoggedMessage, PollTally, SentBy, WEBHOOK_EVENT_INFO, WEBHOOK_EVENTS, type WebhookEvent } from '../../shared/schemas/records'

/** Who made a change (reactions, votes): the chat, "me" or the person's JID, when (epoch ms) and their username. */
const Actor = {
  chatId: Type.String(),
  by: Type.String({ description: 'The person’s JID, or "me" for the shop (the app or the phone).' }),
  fromMe: Type.Boolean(),
  at: Type.Integer({ description: 'Epoch ms.' }),
  username: Type.Optional(Type.String({ description: 'Their WhatsApp username, when WhatsApp told it.' }))
}

const DATA: Record<WebhookEvent, TSchema> = {
  onMessage: LoggedMessage,
  onAnyMessage: LoggedMessage,
  onMessageStatus: LoggedMessage,
  onConnection: Type.Object({ state: Type.String(), previous: Type.String(), reason: Type.Union([Type.String(), Type.Null()]) }),
  onChatStatus: Type.Object({
    chatId: Type.String(),
    status: Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('read')]),
    by: Type.Union([Type.Literal('desk'), Type.Literal('api'), Type.Literal('customer')])
  }),
  onHandoff: Type.Object({ chatId: Type.String(), pause: Type.Union([ChatPause, Type.Null()], { description: 'null: handed back to the bot.' }) }),
  onMessageEdit: Type.Object({ ...LoggedMessage.properties, previousText: Type.Union([Type.String(), Type.Null()], { description: 'The text the edit replaced.' }) }),
  onMessageDelete: LoggedMessage,
  onMessageReaction: Type.Object({ messageId: Type.String(), ...Actor, emoji: Type.String({ description: '"" : the reaction was removed.' }), message: LoggedMessage }),
  onPollVote: Type.Object({
    pollId: Type.String(),
    ...Actor,
    selected: Type.Array(Type.String(), { description: 'The options the voter chose now (empty: the vote was withdrawn).' }),
    poll: PollTally,
    message: LoggedMessage
  }),
  onAssignment: Type.Object({
    chatId: Type.String(),
    assigned_to: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], { description: 'null: unassigned.' }),
    by: SentBy
  })
}

const SIGNING =
  'Signed by the Standard Webhooks scheme: headers `webhook-id` (the same on every attempt, to deduplicate), `webhook-timestamp` (epoch seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` with the instance’s webhook secret). Delivered at least once; answer 2xx. Retried with backoff on network errors, timeouts, 5xx and 429 for up to 24 h.'

/** `webhooks` of the OpenAPI 3.1 document. */
export function webhookDocs(): Record<string, OpenAPIV3_2.PathItemObject> {
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          summary: `${event}: ${WEBHOOK_EVENT_INFO[event]}`,
          description: `Sent to the instance’s webhook URL when \`${event}\` is in its events and send_webhook is on. ${SIGNING}`,
          requestBody: {
            content: {
              'application/json': {
                schema: Type.Object({
                  event: Type.Literal(event),
                  instance_id: Type.String(),
                  session_id: Type.String(),
                  data: DATA[event],
                  timestamp: Type.String({ format: 'date-time' })
                })
              }
            }
          },
          responses: { '200': { description: 'Received (any 2xx).' } }
        }
      }
    ])
  )
}
