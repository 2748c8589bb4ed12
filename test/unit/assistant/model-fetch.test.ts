/**
 * The model's calls go over undici's `request` (src/main/assistant/model-fetch.ts), not Node's `fetch`:
 * what the SDK gets back must be what `fetch` gave it (status, headers, the body), and the limits
 * must hold (the answer's size, the time limit over the whole answer, no redirect followed). Real
 * HTTP servers on loopback, the real openai SDK through ModelClient.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { Agent } from 'undici'
import { afterEach, expect, it } from 'vitest'
import { ModelClient } from '../../../src/main/assistant/model-client'
import { AnswerTooLargeError, MAX_ANSWER_BYTES, requestFetch } from '../../../src/main/assistant/model-fetch'

let server: Server | undefined
const agent = new Agent()
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

/** A server answering with `handle`; its `/v1` root. */
async function serve(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => (body += c))
    req.on('end', () => handle(req, body, res))
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

const completion = (content: string) => JSON.stringify({ id: 'c1', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2 } })
const client = () => new ModelClient(() => agent)
const ask = (baseUrl: string, timeoutMs = 5000) => client().chat({ baseUrl, apiKey: 'sk-test' }, { model: 'm', messages: [{ role: 'user', content: 'hi' }], maxTokens: 10, timeoutMs })

it('hands the SDK the answer as fetch would: the request as sent, the status, headers and body', async () => {
  const seen: Array<{ method?: string; url?: string; auth?: string; type?: string; body: string }> = []
  const baseUrl = await serve((req, body, res) => {
    seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body })
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-1', 'set-cookie': ['a=1', 'b=2'] })
    res.end(completion('Sunday too.'))
  })
  const answer = await ask(baseUrl)
  expect(answer).toEqual({ content: 'Sunday too.', toolCalls: [], usage: { prompt_tokens: 3, completion_tokens: 2 }, finishReason: 'stop' })
  expect(seen).toHaveLength(1)
  expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions', auth: 'Bearer sk-test', type: 'application/json' })
  expect(JSON.parse(seen[0]!.body)).toMatchObject({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })

  // The same answer through the adapter alone: repeated headers kept, the body whole.
  const res = await requestFetch(() => agent)(`${baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  expect(res.status).toBe(200)
  expect(res.statusText).toBe('OK')
  expect(res.headers.get('x-request-id')).toBe('req-1')
  expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
  expect(JSON.parse(await res.text()).choices[0].message.content).toBe('Sunday too.')
})

it('reports an HTTP error with its status and the endpoint’s message, and follows no redirect', async () => {
  let status = 401
  const baseUrl = await serve((_req, _body, res) => {
    if (status === 302) res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end()
    else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }))
  })
  await expect(ask(baseUrl)).rejects.toMatchObject({ kind: 'http', status: 401, message: 'HTTP 401 Unauthorized: Incorrect API key provided' })
  status = 302
  await expect(ask(baseUrl)).rejects.toMatchObject({ kind: 'http', status: 302 })
})

it('asks for no compression, and reads a compressed answer anyway (gzip, br)', async () => {
  const asked: Array<string | undefined> = []
  let coding = 'gzip'
  const baseUrl = await serve((req, _body, res) => {
    asked.push(req.headers['accept-encoding'])
    const text = Buffer.from(completion('Compressed, still read.'))
    const body = coding === 'gzip' ? gzipSync(text) : brotliCompressSync(text)
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': body.length })
    res.end(body)
  })
  expect((await ask(baseUrl)).content).toBe('Compressed, still read.')
  coding = 'br'
  expect((await ask(baseUrl)).content).toBe('Compressed, still read.')
  expect(asked).toEqual(['identity', 'identity'])
})

it('refuses an answer larger than the limit, and the SDK’s call says so', async () => {
  const big = Buffer.alloc(MAX_ANSWER_BYTES + 1024, 0x20)
  const baseUrl = await serve((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(big)
  })
  await expect(requestFetch(() => agent, 1000)(`${baseUrl}/chat/completions`, { method: 'POST', body: '{}' })).rejects.toBeInstanceOf(AnswerTooLargeError)
  await expect(ask(baseUrl)).rejects.toMatchObject({ kind: 'http', message: `the endpoint's answer is larger than ${MAX_ANSWER_BYTES} bytes` })
})

it('holds the time limit over the whole answer: headers at once, a body that never ends', async () => {
  const baseUrl = await serve((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"id":"c1","choices":[')
  })
  const started = performance.now()
  await expect(ask(baseUrl, 300)).rejects.toMatchObject({ kind: 'timeout', message: 'timed out after 300 ms' })
  expect(performance.now() - started).toBeLessThan(5000)
})

it('sends a body that is not text (a voice note’s form) through fetch, as before', async () => {
  const seen: string[] = []
  const baseUrl = await serve((req, body, res) => {
    seen.push(`${req.method} ${req.url} ${String(req.headers['content-type']).split(';')[0]} ${body.includes('name="model"') ? 'with model' : ''}`)
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'Do you deliver on Sundays?' }))
  })
  const text = await client().transcribe({ baseUrl, apiKey: null }, 'whisper-1', { data: Buffer.from('OggS fake audio'), mimetype: 'audio/ogg', fileName: 'note.ogg' }, 5000)
  expect(text).toBe('Do you deliver on Sundays?')
  expect(seen).toEqual(['POST /v1/audio/transcriptions multipart/form-data with model'])
})
