/**
 * The calls to the OpenAI-compatible endpoint (docs/assistant.md "Why these libraries"): chat
 * completions with a tool, embeddings and audio transcriptions, through the `openai` npm SDK pointed
 * at the owner's `base_url`. A client per endpoint and key is kept (building one builds every
 * resource of the SDK: a share of each answer's garbage on the main thread), over one pooled dispatcher
 * (./endpoint-guard.ts: this app's own API refused on every connection), no retries (a failure falls
 * back at once, ./assistant-responder.ts) and a hard time limit per call.
 *
 * The key goes only into the Authorization header of these requests: the SDK's own logging is off,
 * the environment's OPENAI_* variables are never read (every option is given, null where unused), and
 * errors are described by status and the endpoint's short error message, never the request.
 */
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError, toFile } from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { Dispatcher } from 'undici'
import { STATUS_CODES } from 'node:http'
import type { TokenUsage } from '../../shared/schemas/assistant'
import { AnswerTooLargeError, requestFetch } from './model-fetch'

/** Where to call and with which key (null: none; a local model usually needs none). */
export interface ModelEndpoint {
  baseUrl: string
  apiKey: string | null
}

export interface ChatRequest {
  model: string
  messages: ChatCompletionMessageParam[]
  tools?: ChatCompletionTool[]
  maxTokens: number
  timeoutMs: number
}

/** What the model answered: its text, the tools it called, and the tokens as the endpoint counted them. */
export interface ChatAnswer {
  content: string | null
  toolCalls: Array<{ name: string; arguments: string }>
  /** null when the endpoint reported none (some local servers). */
  usage: TokenUsage | null
  finishReason: string | null
}

/** Why a call failed, in words for the owner ("timed out after 30000 ms", "HTTP 401 Unauthorized: …"). */
export class ModelCallError extends Error {
  constructor(
    readonly kind: 'timeout' | 'http' | 'network',
    message: string,
    readonly status?: number
  ) {
    super(message)
    this.name = 'ModelCallError'
  }
}

/** A one-line, bounded excerpt of the endpoint's own error message (JSON `error.message` only). */
function endpointMessage(err: { error?: unknown }): string {
  const body = err.error as { message?: unknown; error?: { message?: unknown } } | undefined
  const raw = typeof body?.message === 'string' ? body.message : typeof body?.error?.message === 'string' ? body.error.message : ''
  const line = raw.replace(/\s+/g, ' ').trim()
  return line ? `: ${line.length > 160 ? `${line.slice(0, 157)}…` : line}` : ''
}

/** `err` (anything a call threw) as a {@link ModelCallError}. */
export function describeFailure(err: unknown, timeoutMs: number): ModelCallError {
  if (err instanceof ModelCallError) return err
  if (err instanceof APIConnectionTimeoutError || err instanceof APIUserAbortError || (err as Error | null)?.name === 'TimeoutError') {
    return new ModelCallError('timeout', `timed out after ${timeoutMs} ms`)
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    return new ModelCallError('http', `HTTP ${err.status}${STATUS_CODES[err.status] ? ` ${STATUS_CODES[err.status]}` : ''}${endpointMessage(err)}`, err.status)
  }
  // A connection error: the cause says which (refused, unknown host, this app's own API).
  const cause = (err as { cause?: unknown } | null)?.cause
  const root: Error | null = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause : cause) : err instanceof Error ? err : null
  if (root instanceof AnswerTooLargeError) return new ModelCallError('http', root.message)
  const code = root && 'code' in root ? String(root.code) : undefined
  const what = code === 'ECONNREFUSED' ? 'connection refused (is the model server running?)' : code === 'ENOTFOUND' ? 'unknown host' : root?.message || 'network error'
  return new ModelCallError('network', `could not reach the endpoint: ${what}`)
}

/** Clients kept (endpoints and keys: an instance has one; the cap guards against many). */
const CLIENTS = 16

export class ModelClient {
  private readonly clients = new Map<string, { dispatcher: Dispatcher; client: OpenAI }>()

  constructor(private readonly dispatcher: () => Dispatcher) {}

  /** The client of `endpoint` (kept per URL and key); the time limit is each call's own. */
  private client(endpoint: ModelEndpoint): OpenAI {
    const dispatcher = this.dispatcher()
    const key = `${endpoint.baseUrl}\n${endpoint.apiKey ?? ''}`
    const kept = this.clients.get(key)
    if (kept?.dispatcher === dispatcher) return kept.client
    if (this.clients.size >= CLIENTS) this.clients.delete(this.clients.keys().next().value!)
    const client = this.build(endpoint, dispatcher)
    this.clients.set(key, { dispatcher, client })
    return client
  }

  private build(endpoint: ModelEndpoint, dispatcher: Dispatcher): OpenAI {
    return new OpenAI({
      baseURL: endpoint.baseUrl,
      // Without a key (a local model) the SDK still wants one; the null header leaves it out of every
      // request, and the placeholder keeps OPENAI_API_KEY from being read.
      apiKey: endpoint.apiKey ?? 'no-key',
      ...(endpoint.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      maxRetries: 0,
      logLevel: 'off',
      // undici's `request` through the guarded dispatcher (./model-fetch.ts says why not `fetch`).
      fetch: requestFetch(() => dispatcher)
    })
  }

  /** One chat completion. Throws {@link ModelCallError}. */
  async chat(endpoint: ModelEndpoint, req: ChatRequest): Promise<ChatAnswer> {
    try {
      // The SDK's time limit alone, no signal of ours: given one, the SDK joins it to its own with
      // AbortSignal.any, which Node keeps through WeakRefs, and the call's garbage would outlive it
      // (./model-fetch.ts). The limit covers the whole answer: ./model-fetch.ts reads it before
      // handing it over.
      const completion = await this.client(endpoint).chat.completions.create(
        { model: req.model, messages: req.messages, max_tokens: req.maxTokens, ...(req.tools?.length ? { tools: req.tools } : {}) },
        { timeout: req.timeoutMs }
      )
      const choice = completion.choices?.[0]
      const message = choice?.message
      const usage = completion.usage ? { prompt_tokens: completion.usage.prompt_tokens ?? 0, completion_tokens: completion.usage.completion_tokens ?? 0 } : null
      const toolCalls = (message?.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ name: c.function.name, arguments: c.function.arguments ?? '' }] : []))
      return { content: message?.content ?? null, toolCalls, usage, finishReason: choice?.finish_reason ?? null }
    } catch (err) {
      throw describeFailure(err, req.timeoutMs)
    }
  }

  /** The vectors of `inputs`, in order, and the tokens used. Throws {@link ModelCallError}. */
  async embed(endpoint: ModelEndpoint, model: string, inputs: readonly string[], timeoutMs: number): Promise<{ vectors: Float32Array[]; tokens: number }> {
    try {
      // encoding_format float: local servers (Ollama) answer floats whatever is asked.
      const res = await this.client(endpoint).embeddings.create({ model, input: [...inputs], encoding_format: 'float' }, { timeout: timeoutMs })
      const data = [...res.data].sort((a, b) => a.index - b.index)
      if (data.length !== inputs.length) throw new ModelCallError('http', `the endpoint answered ${data.length} embeddings for ${inputs.length} texts`)
      return { vectors: data.map((d) => Float32Array.from(d.embedding)), tokens: res.usage?.prompt_tokens ?? 0 }
    } catch (err) {
      throw describeFailure(err, timeoutMs)
    }
  }

  /** The text of a voice note. Throws {@link ModelCallError}. */
  async transcribe(endpoint: ModelEndpoint, model: string, audio: { data: Buffer; mimetype: string; fileName: string }, timeoutMs: number): Promise<string> {
    try {
      const file = await toFile(audio.data, audio.fileName, { type: audio.mimetype })
      // A form goes through Node's fetch, whose answer the SDK reads after the time limit's end: the
      // signal bounds the reading too (voice notes are few: the signal's cost does not matter).
      const res = await this.client(endpoint).audio.transcriptions.create({ model, file }, { signal: AbortSignal.timeout(timeoutMs), timeout: timeoutMs })
      return (res as { text?: string }).text ?? ''
    } catch (err) {
      throw describeFailure(err, timeoutMs)
    }
  }
}
