/** Operations of the bot: intents, surveys and their responses, hand-off, away message, opening hours, what the bot did. */
import Type from 'typebox'
import {
  AwaySettings,
  BotActivity,
  ChatPause,
  HandoffSettings,
  Intent,
  OpeningHours,
  Survey,
  type AwaySettings as AwaySettingsT,
  type BotActivity as BotActivityT,
  type ChatPause as ChatPauseT,
  type HandoffSettings as HandoffSettingsT,
  type Intent as IntentT,
  type OpeningHours as OpeningHoursT,
  type Survey as SurveyT
} from '../../schemas/records'
import { CreateIntentBody, CreateSurveyBody, DeleteResult, UpdateIntentBody, UpdateSurveyBody, type DeleteResult as DeleteResultT } from '../../schemas/operations'
import { op, withoutCredentials } from '../define'
import { SurveyResponse, type SurveyResponseT } from '../results'
import { deleted, Id, items, Page, SETTINGS_UPDATED, type PagedT } from './common'

export const BOT_OPERATIONS = {
  /* ---------- intents (docs/api-seed.md §4.2) ---------- */

  'intents.create': op<IntentT>()({
    summary: 'Create an intent',
    tags: ['intents'],
    scope: 'instance',
    permission: 'bot:write',
    input: withoutCredentials(CreateIntentBody),
    output: Intent,
    http: { method: 'POST', path: '/intent', message: 'Intent created successfully!' },
    rpc: true
  }),
  'intents.list': op<PagedT<IntentT>, IntentT[]>()({
    summary: "The instance's intents",
    tags: ['intents'],
    scope: 'instance',
    permission: 'bot:read',
    input: Page,
    output: Type.Array(Intent),
    http: { method: 'GET', path: '/intent', message: 'Intent fetched successfully!', query: ['offset', 'limit'], respond: 'paged' },
    rpc: { output: items }
  }),
  'intents.get': op<IntentT>()({
    summary: 'One intent',
    tags: ['intents'],
    scope: 'instance',
    permission: 'bot:read',
    input: Type.Object({ id: Id }),
    output: Intent,
    http: { method: 'GET', path: '/intent/:intent_id', params: { intent_id: 'id' }, message: 'Intent fetched successfully!', errors: { 404: 'Unknown intent (or another instance’s)' } }
  }),
  'intents.update': op<IntentT>()({
    summary: 'Update an intent',
    tags: ['intents'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ id: Id, ...withoutCredentials(UpdateIntentBody).properties }),
    output: Intent,
    http: { method: 'PUT', path: '/intent/:intent_id', params: { intent_id: 'id' }, message: 'Intent updated successfully!', errors: { 404: 'Unknown intent (or another instance’s)' } },
    rpc: true
  }),
  'intents.delete': op<void, DeleteResultT>()({
    summary: 'Delete an intent',
    tags: ['intents'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/intent/:intent_id', params: { intent_id: 'id' }, message: 'Intent deleted successfully!', wire: deleted, errors: { 404: 'Unknown intent (or another instance’s)' } },
    rpc: { output: deleted }
  }),

  /* ---------- surveys (docs/api-seed.md §4.1, docs/design.md §9) ---------- */

  'surveys.create': op<SurveyT>()({
    summary: 'Create a survey step',
    description: 'Steps with the same title form one survey, ordered by sort_id. The first step’s keyword lists its triggers; a later step’s non-empty keyword lists the answers it accepts.',
    tags: ['surveys'],
    scope: 'instance',
    permission: 'bot:write',
    input: withoutCredentials(CreateSurveyBody),
    output: Survey,
    http: { method: 'POST', path: '/survey', message: 'Survey created successfully!' },
    rpc: true
  }),
  'surveys.list': op<PagedT<SurveyT>, SurveyT[]>()({
    summary: "The instance's survey steps, grouped by title, in order",
    tags: ['surveys'],
    scope: 'instance',
    permission: 'bot:read',
    input: Page,
    output: Type.Array(Survey),
    http: { method: 'GET', path: '/survey', message: 'Survey fetched successfully!', query: ['offset', 'limit'], respond: 'paged' },
    rpc: { output: items }
  }),
  'surveys.get': op<SurveyT>()({
    summary: 'One survey step',
    tags: ['surveys'],
    scope: 'instance',
    permission: 'bot:read',
    input: Type.Object({ id: Id }),
    output: Survey,
    http: { method: 'GET', path: '/survey/:survey_id', params: { survey_id: 'id' }, message: 'Survey fetched successfully!', errors: { 404: 'Unknown survey step (or another instance’s)' } }
  }),
  'surveys.update': op<SurveyT>()({
    summary: 'Update a survey step',
    tags: ['surveys'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ id: Id, ...withoutCredentials(UpdateSurveyBody).properties }),
    output: Survey,
    http: { method: 'PUT', path: '/survey/:survey_id', params: { survey_id: 'id' }, message: 'Survey updated successfully!', errors: { 404: 'Unknown survey step (or another instance’s)' } },
    rpc: true
  }),
  'surveys.delete': op<void, DeleteResultT>()({
    summary: 'Delete a survey step',
    tags: ['surveys'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/survey/:survey_id', params: { survey_id: 'id' }, message: 'Survey deleted successfully!', wire: deleted, errors: { 404: 'Unknown survey step (or another instance’s)' } },
    rpc: { output: deleted }
  }),
  'surveys.reorder': op<SurveyT[]>()({
    summary: 'Gives the steps of one survey sort_ids 1..n in the order given (UI)',
    tags: ['surveys'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ stepIds: Type.Array(Id, { minItems: 1 }) }),
    output: Type.Array(Survey),
    rpc: true
  }),
  'surveys.markHandled': op<SurveyResponseT>()({
    summary: 'Mark a survey response as handled (or not)',
    tags: ['surveys'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ run_id: Id, handled: Type.Boolean() }),
    output: SurveyResponse,
    http: { method: 'PUT', path: '/survey/response/:run_id', params: { run_id: 'run_id' }, message: 'Survey response updated successfully!', errors: { 404: 'Unknown response (or another instance’s)' } },
    rpc: true
  }),
  'surveys.responses': op<SurveyResponseT[] | { fileName: string; csv: string }, SurveyResponseT[]>()({
    summary: 'Runs of the survey a step belongs to (format=csv for a spreadsheet)',
    tags: ['surveys'],
    scope: 'instance',
    permission: 'bot:read',
    input: Type.Object({ id: Id, format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])) }),
    output: Type.Array(SurveyResponse),
    http: {
      method: 'GET',
      path: '/survey/:survey_id/responses',
      params: { survey_id: 'id' },
      query: ['format'],
      message: 'Survey responses fetched successfully!',
      respond: 'csvWhenAsked',
      errors: { 404: 'Unknown survey step (or another instance’s)' }
    },
    rpc: { output: responsesOnly }
  }),
  'surveys.responsesCsv': op<{ fileName: string; csv: string }>()({
    summary: 'The same runs as CSV: one row per run, one column per question (UI)',
    tags: ['surveys'],
    scope: 'instance',
    permission: 'bot:read',
    input: Type.Object({ id: Id }),
    output: Type.Object({ fileName: Type.String(), csv: Type.String() }),
    rpc: true
  }),

  /* ---------- hand-off, away message, opening hours, bot activity ---------- */

  'handoff.list': op<ChatPauseT[]>()({
    summary: 'Chats where the bot is paused for a person, newest first',
    description: 'A reply from the desk or the phone pauses the bot for that chat (settings.handoff.pause_minutes); a customer’s hand-off keyword pauses it until resumed.',
    tags: ['hand-off'],
    scope: 'instance',
    permission: 'inbox:read',
    input: Type.Object({}),
    output: Type.Array(ChatPause),
    http: { method: 'GET', path: '/chatapp/handoff', message: 'Paused chats fetched successfully!', bodyOptional: true },
    rpc: true
  }),
  'handoff.pause': op<ChatPauseT>()({
    summary: 'Pause the bot for a chat (a person takes over)',
    description: '`minutes` (1–10080) or omitted: until resumed by hand.',
    tags: ['hand-off'],
    scope: 'instance',
    permission: 'inbox:reply',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }), minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })) }),
    output: ChatPause,
    http: { method: 'POST', path: '/chatapp/handoff/pause', message: 'The bot is paused for this chat.' },
    rpc: true
  }),
  'handoff.resume': op<{ resumed: boolean }>()({
    summary: 'Hand a chat back to the bot',
    tags: ['hand-off'],
    scope: 'instance',
    permission: 'inbox:reply',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Type.Object({ resumed: Type.Boolean({ description: 'False when the chat was not paused.' }) }),
    http: { method: 'POST', path: '/chatapp/handoff/resume', message: 'The bot answers this chat again.' },
    rpc: true
  }),
  'settings.away': op<AwaySettingsT>()({
    summary: 'The away message sent outside active days and hours',
    audit: 'Changed the away message',
    description: 'At most once per contact per default-message window. `[name]` is the contact, `[next_open]` when the bot answers again (e.g. "tomorrow at 9:00", in bot_timezone).',
    tags: ['instance settings'],
    scope: 'instance',
    permission: 'settings:write',
    input: Type.Partial(AwaySettings),
    output: AwaySettings,
    http: { method: 'PUT', path: '/chatapp/away', message: SETTINGS_UPDATED },
    rpc: true
  }),
  'settings.openingHours': op<OpeningHoursT>()({
    summary: 'Several windows a day and holidays (beyond active_days / active_hours)',
    audit: 'Changed the opening hours',
    description:
      'Per weekday a list of windows `{from, to}` (H:MM, an overnight window like 19:00–2:00 belongs to the day it starts on); a day with an empty list uses `active_hours`. `holidays`: local dates (YYYY-MM-DD, in bot_timezone) when the bot treats itself as closed (the away message answers). `active_days` still decides which days are open.',
    tags: ['instance settings'],
    scope: 'instance',
    permission: 'settings:write',
    input: Type.Partial(OpeningHours, {
      examples: [{ ranges: { monday: [{ from: '9:00', to: '13:00' }, { from: '15:00', to: '19:00' }], friday: [{ from: '19:00', to: '2:00' }] }, holidays: ['2026-12-25'] }]
    }),
    output: OpeningHours,
    http: { method: 'PUT', path: '/chatapp/openingHours', message: SETTINGS_UPDATED },
    rpc: true
  }),
  'handoff.settings': op<HandoffSettingsT>()({
    summary: 'How long a person’s reply pauses the bot, and the customer’s hand-off keyword',
    audit: 'Changed the hand-off settings',
    description: '`pause_minutes` 0 = a reply never pauses the bot. `keyword`: comma-separated words a customer writes to ask for a person (empty = none).',
    tags: ['hand-off'],
    scope: 'instance',
    permission: 'settings:write',
    input: Type.Partial(HandoffSettings),
    output: HandoffSettings,
    http: { method: 'PUT', path: '/chatapp/handoff/settings', message: SETTINGS_UPDATED },
    rpc: true
  }),

  'bot.activity': op<readonly BotActivityT[]>()({
    summary: 'Actions the bot ran (newest last), with the outcome of each',
    tags: ['bot'],
    scope: 'instance',
    permission: 'bot:read',
    input: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })) }),
    output: Type.Array(BotActivity),
    http: { method: 'GET', path: '/chatapp/bot/activity', query: ['limit'], message: 'Bot activity fetched successfully!' },
    rpc: true
  })
} as const

/** The JSON form of the survey responses (the CSV form is the HTTP face's). */
function responsesOnly(r: SurveyResponseT[] | { fileName: string; csv: string }): SurveyResponseT[] {
  return Array.isArray(r) ? r : []
}
