/**
 * Sandbox routes (DESIGN.md §6): simulate the phone scanning the QR, and deliver an inbound message
 * exactly as a real one arrives (message log, bot engine, webhooks). Only for sandbox instances.
 */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { Core } from '../../core'
import { LoggedMessage } from '../../../shared/schemas/records'
import { CredentialsBody, CredentialsQuery, SandboxInboundBody } from '../../../shared/schemas/operations'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'

const tags = ['sandbox']

export function sandboxRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()

  app.post(
    '/chatapp/sandbox/scan',
    {
      schema: {
        tags,
        summary: 'Simulate the phone scanning the QR code',
        querystring: CredentialsQuery,
        body: Type.Optional(CredentialsBody),
        response: responses(
          'Sandbox device linked successfully!',
          Type.Object({ status: Type.String(), bot_number: Type.String(), user: Type.Object({ id: Type.String(), name: Type.String() }) }),
          { 409: 'Not a sandbox instance, not started, or already linked' }
        )
      }
    },
    async (req) => {
      const account = await core.sandbox.scan(requestInstance(req))
      return ok('Sandbox device linked successfully!', { status: 'CONNECTED', bot_number: account.phone, user: { id: account.id, name: account.name } })
    }
  )

  app.post(
    '/chatapp/sandbox/inbound',
    {
      schema: {
        tags,
        summary: 'Deliver an inbound message to a sandbox instance',
        description: 'Answers once the message is logged and the bot has handled it, with the bot’s replies to that chat.',
        querystring: CredentialsQuery,
        body: SandboxInboundBody,
        response: responses('Message received successfully', Type.Object({ message: LoggedMessage, replies: Type.Array(LoggedMessage) }), {
          409: 'Not a sandbox instance or not connected'
        })
      }
    },
    async (req) => {
      const { session_id: _s, access_token: _a, ...input } = req.body
      return ok('Message received successfully', await core.sandbox.inbound(requestInstance(req), input))
    }
  )
}
