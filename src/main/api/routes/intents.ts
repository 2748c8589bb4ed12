/** Intent routes (seed §4.2): the instance's keyword replies. */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { Core } from '../../core'
import { Intent } from '../../../shared/schemas/records'
import { CreateIntentBody, CredentialsBody, CredentialsQuery, DeleteResult, IdParam, UpdateIntentBody } from '../../../shared/schemas/operations'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'

const tags = ['intents']
const NF = { 404: 'Unknown intent (or another instance’s)' }

export function intentRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()
  const intents = core.intents
  const params = IdParam('intent_id')

  app.post(
    '/intent',
    { schema: { tags, summary: 'Create an intent', querystring: CredentialsQuery, body: CreateIntentBody, response: responses('Intent created successfully!', Intent) } },
    async (req) => ok('Intent created successfully!', await intents.create(requestInstance(req), req.body))
  )
  app.get(
    '/intent',
    { schema: { tags, summary: "The instance's intents", querystring: CredentialsQuery, body: Type.Optional(CredentialsBody), response: responses('Intent fetched successfully!', Type.Array(Intent)) } },
    async (req) => ok('Intent fetched successfully!', intents.list(requestInstance(req)))
  )
  app.get(
    '/intent/:intent_id',
    { schema: { tags, summary: 'One intent', params, querystring: CredentialsQuery, body: Type.Optional(CredentialsBody), response: responses('Intent fetched successfully!', Intent, NF) } },
    async (req) => ok('Intent fetched successfully!', intents.get(requestInstance(req), req.params.intent_id as string))
  )
  app.put(
    '/intent/:intent_id',
    { schema: { tags, summary: 'Update an intent', params, querystring: CredentialsQuery, body: UpdateIntentBody, response: responses('Intent updated successfully!', Intent, NF) } },
    async (req) => ok('Intent updated successfully!', await intents.update(requestInstance(req), req.params.intent_id as string, req.body))
  )
  app.delete(
    '/intent/:intent_id',
    { schema: { tags, summary: 'Delete an intent', params, querystring: CredentialsQuery, body: Type.Optional(CredentialsBody), response: responses('Intent deleted successfully!', DeleteResult, NF) } },
    async (req) => ok('Intent deleted successfully!', await intents.delete(requestInstance(req), req.params.intent_id as string))
  )
}
