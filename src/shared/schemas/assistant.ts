/**
 * The assistant's records and API shapes (docs/assistant.md, docs/design.md §23): its settings per
 * instance (the endpoint's key is write-only and never part of a record that is answered), the
 * shop's knowledge entries, the dry run's answer, what an answer cost and drew on, and the usage per day.
 * One schema per shape gives the TypeScript type, the OpenAPI component and the validation.
 */
import Type, { type Static } from 'typebox'

/** What the assistant does when it cannot answer (a timeout, an error, an unusable answer, the day's tokens spent). */
export const ASSISTANT_FALLBACKS = ['default', 'handoff'] as const

/** The owner's settings of an instance's assistant, as stored and answered (the key aside). */
export const AssistantSettingsFields = {
  enabled: Type.Boolean({ description: 'The assistant answers customers (after surveys and keyword intents, before the default message).' }),
  base_url: Type.String({
    maxLength: 500,
    description: 'The OpenAI-compatible endpoint’s /v1 root, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 (Ollama). Loopback and LAN addresses are allowed; this app’s own API port is not.'
  }),
  model: Type.String({ maxLength: 200, description: 'The chat model’s name at that endpoint (e.g. gpt-4o-mini, llama3.1:8b).' }),
  instructions: Type.String({ maxLength: 8000, description: 'The owner’s instructions: tone, what to say and not to say. The shop’s knowledge and facts are added by the app.' }),
  history_messages: Type.Integer({ minimum: 0, maximum: 50, description: 'How many of the chat’s latest messages the model sees.' }),
  daily_token_limit: Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Tokens (prompt + completion, embeddings and dry runs included) a day, in bot_timezone; 0 = no limit (a local model). A call is made only when the day’s remainder covers its estimate.' }),
  handoff_message: Type.String({ minLength: 1, maxLength: 1000, description: 'Sent when the assistant hands the chat to a person ([name] is the customer).' }),
  timeout_ms: Type.Integer({ minimum: 1000, maximum: 120_000, description: 'How long one answer may take before the fallback is sent.' }),
  fallback: Type.Union([Type.Literal('default'), Type.Literal('handoff')], {
    description: 'When the assistant cannot answer: `default` sends the default message (at most once in 10 minutes per chat), `handoff` hands the chat to a person with handoff_message.'
  }),
  outside_hours: Type.Boolean({ description: 'Answer outside opening hours too (the away message is then the fallback); off: outside hours the away message answers as before.' }),
  max_replies_per_hour: Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many assistant replies per chat per hour (two bots writing to each other cannot loop).' }),
  debounce_ms: Type.Integer({ minimum: 0, maximum: 15_000, description: 'A burst of customer messages within this time of each other is answered once.' }),
  max_reply_tokens: Type.Integer({ minimum: 50, maximum: 8000, description: 'The longest answer, in tokens (the request’s max_tokens).' }),
  knowledge_chunks: Type.Integer({ minimum: 1, maximum: 12, description: 'How many of the best-matching knowledge passages the model sees.' }),
  embedding_model: Type.String({ maxLength: 200, description: 'An embedding model at the same endpoint (e.g. text-embedding-3-small, nomic-embed-text): knowledge is then also ranked by meaning (reciprocal rank fusion with the text search). Empty: text search only.' }),
  transcribe_voice: Type.Boolean({ description: 'Voice notes are transcribed through /v1/audio/transcriptions first and answered like text.' }),
  transcription_model: Type.String({ maxLength: 200, description: 'The transcription model (e.g. whisper-1).' })
}
export const AssistantSettings = Type.Object(AssistantSettingsFields)
export type AssistantSettings = Static<typeof AssistantSettings>

/** The settings of an instance that never set them. */
export const DEFAULT_ASSISTANT: AssistantSettings = {
  enabled: false,
  base_url: '',
  model: '',
  instructions:
    'You are the friendly assistant of this shop on WhatsApp. Answer in the customer’s language, briefly (at most a few sentences), using only the shop’s knowledge and facts given to you. When you do not know, or the customer wants a person, is upset or complains, hand the chat to a person.',
  history_messages: 10,
  daily_token_limit: 200_000,
  handoff_message: 'I’m passing you to a person on our team; they will answer you here as soon as they can.',
  timeout_ms: 30_000,
  fallback: 'default',
  outside_hours: false,
  max_replies_per_hour: 20,
  debounce_ms: 2000,
  max_reply_tokens: 500,
  knowledge_chunks: 4,
  embedding_model: '',
  transcribe_voice: false,
  transcription_model: 'whisper-1'
}

/** The circuit breaker of an instance's endpoint: open after repeated failures, for a while. */
export const AssistantCircuit = Type.Object({
  state: Type.Union([Type.Literal('closed'), Type.Literal('open')], { description: 'open: the endpoint failed repeatedly; the fallback answers until `until`.' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'The last failure, e.g. "timed out after 30000 ms" or "HTTP 500 Internal Server Error".' }),
  until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  failures: Type.Integer({ description: 'Failures in a row.' })
})
export type AssistantCircuit = Static<typeof AssistantCircuit>

/** `GET /chatapp/assistant`: the settings, whether a key is stored, today's tokens and the circuit. */
export const AssistantView = Type.Object({
  ...AssistantSettingsFields,
  api_key_set: Type.Boolean({ description: 'A key is stored (it is never answered).' }),
  tokens_today: Type.Integer({ description: 'Tokens used today (bot_timezone).' }),
  circuit: AssistantCircuit
})
export type AssistantView = Static<typeof AssistantView>

/** `PUT /chatapp/assistant`: any of the settings, and the key (write-only: omitted keeps it, '' removes it). */
export const AssistantUpdate = Type.Partial(
  Type.Object({
    ...AssistantSettingsFields,
    api_key: Type.String({ maxLength: 1000, description: 'The endpoint’s key (sent as a Bearer token). Write-only: never answered, logged or sent anywhere else. Omitted: kept; "": removed.' })
  })
)
export type AssistantUpdate = Static<typeof AssistantUpdate>

/** A knowledge entry (docs/assistant.md "Knowledge"): written by hand or imported from a file, found by its chunks. */
export const KnowledgeEntry = Type.Object({
  _id: Type.String(),
  instance_id: Type.String(),
  title: Type.String({ minLength: 1, maxLength: 200 }),
  content: Type.String({ maxLength: 2_000_000 }),
  source: Type.Union([Type.Literal('manual'), Type.Literal('file')]),
  file_name: Type.Union([Type.String(), Type.Null()], { description: 'The imported file’s name.' }),
  chunks: Type.Integer({ description: 'Passages the content was cut into for search.' }),
  createdAt: Type.String(),
  updatedAt: Type.String()
})
export type KnowledgeEntry = Static<typeof KnowledgeEntry>

/** One entry of the knowledge list: the content shortened, and where `q` matched. */
export const KnowledgeListItem = Type.Object({
  ...Type.Omit(KnowledgeEntry, ['content']).properties,
  excerpt: Type.String({ description: 'The content’s start, or with `q` the passage around the first match.' }),
  highlights: Type.Array(Type.Tuple([Type.Integer(), Type.Integer()]), { description: 'With `q`: ranges of the excerpt that matched (UTF-16 offsets).' })
})
export type KnowledgeListItem = Static<typeof KnowledgeListItem>

export const KnowledgeBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  content: Type.String({ minLength: 1, maxLength: 2_000_000 })
})
export type KnowledgeBody = Static<typeof KnowledgeBody>

/** A passage the answer drew on. */
export const KnowledgeSource = Type.Object({ id: Type.String({ description: 'The knowledge entry’s id.' }), title: Type.String() })
export type KnowledgeSource = Static<typeof KnowledgeSource>

/** Tokens one call used, as the endpoint reported them. */
export const TokenUsage = Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer() })
export type TokenUsage = Static<typeof TokenUsage>

/** `POST /chatapp/assistant/ask`: a dry run that sends nothing. */
export const AskBody = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 4000, description: 'What a customer might write.' }),
  chat_id: Type.Optional(Type.String({ minLength: 1, description: 'Answer as in this chat (its latest messages are the history).' }))
})
export type AskBody = Static<typeof AskBody>

export const AskResult = Type.Object({
  reply: Type.String({ description: 'What the customer would get: the model’s answer, handoff_message, or the fallback’s text.' }),
  handoff: Type.Boolean({ description: 'The model would hand the chat to a person.' }),
  handoff_reason: Type.Optional(Type.String()),
  sources: Type.Array(KnowledgeSource),
  usage: TokenUsage,
  ms: Type.Integer({ description: 'How long the model took.' }),
  model: Type.String(),
  fallback: Type.Optional(Type.Object({ reason: Type.String(), detail: Type.String() }, { description: 'The assistant could not answer: why, and the fallback the customer would get instead.' }))
})
export type AskResult = Static<typeof AskResult>

/** How one answer went, recorded in the bot activity and under the customer's message ("why"). */
export const AssistantOutcome = Type.Object({
  outcome: Type.Union([Type.Literal('pending'), Type.Literal('answered'), Type.Literal('handoff'), Type.Literal('fallback'), Type.Literal('capped')]),
  model: Type.String(),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  ms: Type.Integer({ description: 'How long the model took (0 when not called).' }),
  sources: Type.Array(KnowledgeSource),
  error: Type.Optional(Type.String({ description: 'Why it fell back: a timeout, an error, an unusable answer, the day’s tokens, an open circuit.' })),
  fallback: Type.Optional(Type.Union([Type.Literal('default'), Type.Literal('away'), Type.Literal('handoff'), Type.Literal('none')], { description: 'What was sent instead (none: the fallback was sent to this chat in the last 10 minutes).' })),
  handoff_reason: Type.Optional(Type.String()),
  message_ids: Type.Optional(Type.Array(Type.String(), { description: 'The customer messages answered together (a burst).' }))
})
export type AssistantOutcome = Static<typeof AssistantOutcome>

/** One answer (or fallback) the assistant gave a chat: kept for the hourly cap and a customer's export. */
export const AssistantReply = Type.Object({
  at: Type.String({ format: 'date-time' }),
  chatId: Type.String(),
  question: Type.String({ description: 'The customer’s messages it answered (voice notes as transcribed).' }),
  reply: Type.String({ description: 'What was sent.' }),
  ...Type.Omit(AssistantOutcome, ['message_ids']).properties,
  message_ids: Type.Array(Type.String())
})
export type AssistantReply = Static<typeof AssistantReply>

/** The assistant's use on one day (bot_timezone). */
export const AssistantUsageDay = Type.Object({
  day: Type.String({ description: 'YYYY-MM-DD in bot_timezone.' }),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  replies: Type.Integer({ description: 'Answers sent to customers.' }),
  handoffs: Type.Integer(),
  fallbacks: Type.Integer(),
  asks: Type.Integer({ description: 'Dry runs (Ask your assistant).' })
})
export type AssistantUsageDay = Static<typeof AssistantUsageDay>
