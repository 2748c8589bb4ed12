/** The bot's activity log (extension, DESIGN.md §10): what each message triggered, failures included. */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { Core } from '../../core'
import { BotActivity } from '../../../shared/schemas/records'
import { CredentialsBody, Credentials } from '../../../shared/schemas/operations'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'

export function botRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/chatapp/bot/activity',
    {
      schema: {
        tags: ['bot'],
        summary: 'Actions the bot ran (newest last), with the outcome of each',
        querystring: Type.Object({ ...Credentials, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })) }),
        body: Type.Optional(CredentialsBody),
        response: responses('Bot activity fetched successfully!', Type.Array(BotActivity))
      }
    },
    async (req) => ok('Bot activity fetched successfully!', core.bot.activity(requestInstance(req)._id, req.query.limit))
  )
}
