/** Survey routes (seed §4.1, DESIGN.md §9): steps of the instance's questionnaires and their runs. */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { Core } from '../../core'
import { Survey, SurveyAnswer } from '../../../shared/schemas/records'
import {
  CreateSurveyBody,
  CredentialsBody,
  CredentialsQuery,
  DeleteResult,
  IdParam,
  SurveyResponsesQuery,
  UpdateSurveyBody
} from '../../../shared/schemas/operations'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'

const tags = ['surveys']
const NF = { 404: 'Unknown survey step (or another instance’s)' }

export const SurveyResponse = Type.Object({
  _id: Type.String(),
  chatId: Type.String(),
  pushName: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: 'in_progress, completed or expired' }),
  answers: Type.Array(SurveyAnswer),
  startedAt: Type.String(),
  completedAt: Type.Union([Type.String(), Type.Null()])
})

export function surveyRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()
  const surveys = core.surveys
  const params = IdParam('survey_id')

  app.post(
    '/survey',
    {
      schema: {
        tags,
        summary: 'Create a survey step',
        description: 'Steps with the same title form one survey, ordered by sort_id. The first step’s keyword lists its triggers; a later step’s non-empty keyword lists the answers it accepts.',
        querystring: CredentialsQuery,
        body: CreateSurveyBody,
        response: responses('Survey created successfully!', Survey)
      }
    },
    async (req) => ok('Survey created successfully!', await surveys.create(requestInstance(req), req.body))
  )
  app.get(
    '/survey',
    { schema: { tags, summary: "The instance's survey steps, grouped by title, in order", querystring: CredentialsQuery, body: Type.Optional(CredentialsBody), response: responses('Survey fetched successfully!', Type.Array(Survey)) } },
    async (req) => ok('Survey fetched successfully!', surveys.list(requestInstance(req)))
  )
  app.get(
    '/survey/:survey_id',
    { schema: { tags, summary: 'One survey step', params, querystring: CredentialsQuery, body: Type.Optional(CredentialsBody), response: responses('Survey fetched successfully!', Survey, NF) } },
    async (req) => ok('Survey fetched successfully!', surveys.get(requestInstance(req), req.params.survey_id as string))
  )
  app.put(
    '/survey/:survey_id',
    { schema: { tags, summary: 'Update a survey step', params, querystring: CredentialsQuery, body: UpdateSurveyBody, response: responses('Survey updated successfully!', Survey, NF) } },
    async (req) => ok('Survey updated successfully!', await surveys.update(requestInstance(req), req.params.survey_id as string, req.body))
  )
  app.delete(
    '/survey/:survey_id',
    { schema: { tags, summary: 'Delete a survey step', params, querystring: CredentialsQuery, body: Type.Optional(CredentialsBody), response: responses('Survey deleted successfully!', DeleteResult, NF) } },
    async (req) => ok('Survey deleted successfully!', await surveys.delete(requestInstance(req), req.params.survey_id as string))
  )
  app.get(
    '/survey/:survey_id/responses',
    {
      schema: {
        tags,
        summary: 'Runs of the survey a step belongs to (format=csv for a spreadsheet)',
        params,
        querystring: SurveyResponsesQuery,
        body: Type.Optional(CredentialsBody),
        response: responses('Survey responses fetched successfully!', Type.Array(SurveyResponse), NF)
      }
    },
    async (req, reply) => {
      const inst = requestInstance(req)
      const id = req.params.survey_id as string
      if (req.query.format === 'csv') {
        const title = surveys.get(inst, id).title.replace(/[^\w.-]+/g, '_')
        // The typed 200 is the JSON form; this branch answers the CSV file.
        return reply
          .type('text/csv; charset=utf-8')
          .header('Content-Disposition', `attachment; filename="${title}-responses.csv"`)
          .send(surveys.responsesCsv(inst, id) as never)
      }
      return ok('Survey responses fetched successfully!', surveys.responses(inst, id))
    }
  )
}
