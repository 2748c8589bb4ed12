/**
 * An OpenAI-compatible endpoint for the assistant's tests: a real HTTP server on loopback (what
 * Ollama, LM Studio or llama.cpp's server are to the desk), answering
 *
 * - `POST /v1/chat/completions` as the test scripts it: a text answer, a `handoff_to_human` tool call,
 *   a tool call written as text, an HTTP error, a delay past the client's timeout, an answer held
 *   until the test lets it go, with or without
 *   `usage`; unscripted calls get `reply(request)` (default: an answer naming the knowledge it was given);
 * - `POST /v1/embeddings`: deterministic vectors (hashed words, 64 dimensions, unit length), so texts
 *   sharing words are close, with `usage.prompt_tokens` = the words;
 * - `POST /v1/audio/transcriptions` (multipart): `transcript`, recording the file it got;
 * - `GET /v1/models`.
 *
 * Every request is recorded (path, headers, parsed body) for the tests to check what the desk sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** One scripted answer of the chat endpoint. */
export type ChatBehaviour =
  /** `after`: answers once it settles (the test holds the answer while it acts). */
  | { reply: string; usage?: { prompt_tokens: number; completion_tokens: number } | null; finish_reason?: string; delayMs?: number; after?: Promise<unknown> }
  | { toolCall: { name: string; arguments: string }; usage?: { prompt_tokens: number; completion_tokens: number } | null; delayMs?: number }
  | { status: number; message?: string; delayMs?: number }
  /** Never answers (the socket stays open until the client gives up or the server closes). */
  | { hang: true }

export interface ChatRequestBody {
  model: string
  messages: Array<{ role: string; content: string }>
  tools?: Array<{ type: string; function: { name: string; parameters: unknown } }>
  max_tokens?: number
}

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: unknown
  /** The raw body's length (bytes). */
  bytes: number
  at: number
}

export interface OpenAiFake {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string
  port: number
  requests: RecordedRequest[]
  /** The chat requests' bodies, oldest first. */
  chats(): ChatRequestBody[]
  /** Scripts the next chat answers, in order (then `reply` answers). */
  script(...behaviours: ChatBehaviour[]): void
  /** The answer to unscripted chat calls. */
  reply: (req: ChatRequestBody) => ChatBehaviour
  /** What a transcription answers. */
  transcript: string
  /** Answers embeddings with this HTTP status instead (null: normally). */
  embeddingsStatus: number | null
  /** The vector of a text (default {@link fakeEmbedding}). */
  embed: (text: string) => number[]
  close(): Promise<void>
}

/** The system prompt's knowledge passages' titles (`[n] Title` lines), for default answers. */
export function knowledgeTitles(req: ChatRequestBody): string[] {
  const system = req.messages.find((m) => m.role === 'system')?.content ?? ''
  const block = /<knowledge>([\s\S]*)<\/knowledge>/.exec(system)?.[1] ?? ''
  return [...block.matchAll(/^\[\d+\] (.+)$/gm)].map((m) => m[1]!)
}

/** A deterministic unit vector of `text`'s words (64 dimensions). */
export function fakeEmbedding(text: string): number[] {
  const v = new Array<number>(64).fill(0)
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 2)) {
    let h = 2166136261
    for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619)
    v[(h >>> 0) % 64]! += 1
  }
  const len = Math.hypot(...v) || 1
  return v.map((x) => x / len)
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

export async function startOpenAiFake(): Promise<OpenAiFake> {
  const queue: ChatBehaviour[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const fake: OpenAiFake = {
    baseUrl: '',
    port: 0,
    requests: [],
    chats: () => fake.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as ChatRequestBody),
    script: (...b) => void queue.push(...b),
    reply: (req) => ({ reply: `From our knowledge (${knowledgeTitles(req).join(', ') || 'nothing'}): here is the answer.`, usage: { prompt_tokens: 120, completion_tokens: 12 } }),
    transcript: 'Do you deliver on Sundays?',
    embeddingsStatus: null,
    embed: fakeEmbedding,
    close: async () => {
      for (const t of timers) clearTimeout(t)
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t)
      fn()
    }, ms)
    timers.add(t)
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      const path = (req.url ?? '').split('?')[0]!
      const json = (req.headers['content-type'] ?? '').includes('application/json')
      let body: unknown = null
      if (json) {
        try {
          body = JSON.parse(raw.toString('utf8'))
        } catch {
          return send(res, 400, { error: { message: 'bad JSON' } })
        }
      } else if (raw.length > 0) {
        // Multipart (a transcription): the form's text fields and the file's name and size.
        const text = raw.toString('latin1')
        const fields = Object.fromEntries([...text.matchAll(/name="([^"]+)"\r\n\r\n([^\r]*)\r\n/g)].map((m) => [m[1]!, m[2]!]))
        const file = /name="file"; filename="([^"]+)"/.exec(text)?.[1]
        body = { ...fields, file }
      }
      fake.requests.push({ method: req.method ?? '', path, headers: req.headers, body, bytes: raw.length, at: Date.now() })

      if (req.method === 'GET' && path === '/v1/models') return send(res, 200, { object: 'list', data: [{ id: 'fake-chat', object: 'model' }] })
      if (req.method === 'POST' && path === '/v1/embeddings') {
        if (fake.embeddingsStatus !== null) return send(res, fake.embeddingsStatus, { error: { message: 'embeddings are down' } })
        const input = (body as { input: string | string[] }).input
        const texts = Array.isArray(input) ? input : [input]
        const tokens = texts.reduce((n, t) => n + t.split(/\s+/).length, 0)
        return send(res, 200, { object: 'list', model: (body as { model: string }).model, data: texts.map((t, index) => ({ object: 'embedding', index, embedding: fake.embed(t) })), usage: { prompt_tokens: tokens, total_tokens: tokens } })
      }
      if (req.method === 'POST' && path === '/v1/audio/transcriptions') return send(res, 200, { text: fake.transcript })
      if (req.method === 'POST' && path === '/v1/chat/completions') {
        const chat = body as ChatRequestBody
        const b = queue.shift() ?? fake.reply(chat)
        if ('hang' in b) return
        const answer = () => {
          if ('status' in b) return send(res, b.status, { error: { message: b.message ?? 'the fake failed on purpose', type: 'server_error' } })
          const usage = b.usage === undefined ? { prompt_tokens: 100, completion_tokens: 10 } : b.usage
          const message =
            'toolCall' in b
              ? { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: b.toolCall }] }
              : { role: 'assistant', content: b.reply }
          const finish = 'toolCall' in b ? 'tool_calls' : (b.finish_reason ?? 'stop')
          send(res, 200, {
            id: `chatcmpl-${fake.requests.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: chat.model,
            choices: [{ index: 0, message, finish_reason: finish }],
            ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {})
          })
        }
        if ('after' in b && b.after) void b.after.then(answer, answer)
        else if (b.delayMs) later(b.delayMs, answer)
        else answer()
        return
      }
      send(res, 404, { error: { message: `no route ${req.method} ${path}` } })
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.port = (server.address() as AddressInfo).port
  fake.baseUrl = `http://127.0.0.1:${fake.port}/v1`
  return fake
}
