/**
 * Webhook deliveries (DESIGN.md §11, extension): list an instance's deliveries and retry one.
 * Instance credentials from the query string or the JSON body; a delivery of another instance is a 404.
 */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { Core } from '../../core'
import { CredentialsBody, CredentialsQuery, IdParam } from '../../../shared/schemas/operations'
import { DeliveriesQuery, WebhookDelivery } from '../../../shared/schemas/webhooks'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'

const tags = ['webhooks']
export const DELIVERIES_FETCHED = 'Webhook deliveries fetched successfully!'
export const DELIVERY_QUEUED = 'Webhook delivery queued for retry'

/** Registers `GET /chatapp/webhook/deliveries` and `POST /chatapp/webhook/deliveries/{delivery_id}/retry`. */
export function webhookRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/chatapp/webhook/deliveries',
    {
      schema: {
        tags,
        summary: "The instance's webhook deliveries, newest first (extension)",
        description:
          'Pending (queued or waiting for a retry), delivered (kept: the newest 50) and failed ones (4xx, or 24 h of retries; kept for a manual retry). `status` filters, `limit` caps (default 50).',
        querystring: DeliveriesQuery,
        body: Type.Optional(CredentialsBody),
        response: responses(DELIVERIES_FETCHED, Type.Array(WebhookDelivery))
      }
    },
    async (req) => {
      const inst = requestInstance(req)
      return ok(DELIVERIES_FETCHED, core.webhooks.list(inst._id, { status: req.query.status, limit: req.query.limit }))
    }
  )

  app.post(
    '/chatapp/webhook/deliveries/:delivery_id/retry',
    {
      schema: {
        tags,
        summary: 'Send a failed or pending webhook delivery again now (extension)',
        description: "Requeues the delivery for an attempt now, to the instance's current webhook URL. A delivery past its 24 h window gets one attempt.",
        params: IdParam('delivery_id'),
        querystring: CredentialsQuery,
        body: Type.Optional(CredentialsBody),
        response: responses(DELIVERY_QUEUED, WebhookDelivery, { 404: 'Unknown delivery (or one of another instance)', 409: 'Already delivered' })
      }
    },
    async (req) => {
      const inst = requestInstance(req)
      return ok(DELIVERY_QUEUED, await core.webhooks.retry(inst._id, req.params.delivery_id as string))
    }
  )
}
