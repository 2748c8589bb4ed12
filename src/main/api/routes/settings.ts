/**
 * Instance settings updates (seed §4.3, DESIGN.md §5). Credentials come from the query string or the
 * body. Each answers the update result of seed 2.9; setWebhook answers the webhook and its secret.
 */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { Core } from '../../core'
import {
  CredentialsQuery,
  SetWebhookBody,
  UpdateActionsBody,
  UpdateActiveDaysBody,
  UpdateActiveHoursBody,
  UpdateGeneralBody,
  UpdateResult
} from '../../../shared/schemas/operations'
import { RequestConfig } from '../../../shared/schemas/records'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'

const tags = ['instance settings']
const MESSAGE = 'Chatapp settings updated successfully!'

export function settingsRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()
  const s = core.instances

  app.put(
    '/chatapp/updateGeneral',
    { schema: { tags, summary: 'Bot name, time zone, language, default message', querystring: CredentialsQuery, body: UpdateGeneralBody, response: responses(MESSAGE, UpdateResult) } },
    async (req) => ok(MESSAGE, await s.updateGeneral(requestInstance(req), req.body))
  )
  app.put(
    '/chatapp/updateActions',
    { schema: { tags, summary: 'Behaviour flags', querystring: CredentialsQuery, body: UpdateActionsBody, response: responses(MESSAGE, UpdateResult) } },
    async (req) => ok(MESSAGE, await s.updateActions(requestInstance(req), req.body))
  )
  app.put(
    '/chatapp/updateActiveDays',
    { schema: { tags, summary: 'Days the bot answers', querystring: CredentialsQuery, body: UpdateActiveDaysBody, response: responses(MESSAGE, UpdateResult) } },
    async (req) => ok(MESSAGE, await s.updateActiveDays(requestInstance(req), req.body))
  )
  app.put(
    '/chatapp/updateActiveHours',
    {
      schema: {
        tags,
        summary: 'Hours the bot answers',
        description: '`H:MM`/`HH:MM` or `always` (both). `from` later than `to` is an overnight window.',
        querystring: CredentialsQuery,
        body: UpdateActiveHoursBody,
        response: responses(MESSAGE, UpdateResult)
      }
    },
    async (req) => ok(MESSAGE, await s.updateActiveHours(requestInstance(req), req.body))
  )
  app.put(
    '/chatapp/setWebhook',
    {
      schema: {
        tags,
        summary: 'Webhook URL, events and request options',
        description: 'Deliveries are signed with the Standard Webhooks scheme using the answered `secret`. actions.send_webhook switches sending on or off.',
        querystring: CredentialsQuery,
        body: SetWebhookBody,
        response: responses(
          MESSAGE,
          Type.Object({ webhook_url: Type.String(), events: Type.Array(Type.String()), requestConfig: RequestConfig, secret: Type.String(), send_webhook: Type.Boolean() })
        )
      }
    },
    async (req) => ok(MESSAGE, await s.setWebhook(requestInstance(req), req.body))
  )
}
