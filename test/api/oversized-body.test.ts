/**
 * A body over the limit is answered with the 413 envelope that every client can read:
 * Node's fetch writes the whole body before it reads the answer, so a server that answers and closes
 * the connection at the limit leaves it with EPIPE instead. The server reads the rest of the body and
 * throws it away (up to a cap) before answering. Runs the real headless process: a client in the
 * server's own process does not show the failure. Every such answer states the limit; headers past
 * what Node's parser takes get the envelope too (431), not the framework's default body.
 */
import { connect } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { SERVE_TOKEN, serveApi, startServe, type ServeProcess } from '../helpers/serve-process'

let dir: string
let srv: ServeProcess
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-oversized-'))
  // JSON limit 64 KiB, file limit 8 MiB: the discard cap is twice the file limit, 16 MiB.
  srv = await startServe({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: SERVE_TOKEN, CHATAPP_MAX_JSON_KB: '64', CHATAPP_MAX_FILE_MB: '8' })
}, 40_000)
afterAll(async () => {
  if (srv.child.exitCode === null && srv.child.signalCode === null) {
    srv.child.kill('SIGTERM')
    await srv.exited
  }
  await rm(dir, { recursive: true, force: true })
})

const auth = { authorization: `Bearer ${SERVE_TOKEN}`, 'content-type': 'application/json' }
/** A create request's JSON body of 12 MiB: past the JSON limit, within the discard cap, more than the socket buffers hold. */
const oversized = () => JSON.stringify({ channel: 'sandbox', pad: 'x'.repeat(12 * 1024 * 1024) })
// The answer names the limit passed and the setting that moves it.
const envelope413 = { status: false, message: 'The request body is larger than the limit of 64 KB (CHATAPP_MAX_JSON_KB).', error: { code: 'PAYLOAD_TOO_LARGE' } }

it('answers a JSON body over the limit with the 413 envelope, read by fetch (Content-Length)', async () => {
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${srv.url}/chatapp/createNewChatapp`, { method: 'POST', headers: auth, body: oversized() })
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual(envelope413)
  }
  // Nothing was created, and the server goes on serving.
  expect((await serveApi(srv.url, 'GET', '/chatapp')).json.data).toEqual([])
})

it('answers a chunked JSON body over the limit with the 413 envelope, read by fetch', async () => {
  const bytes = new TextEncoder().encode(oversized())
  for (let i = 0; i < 3; i++) {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024))
        controller.close()
      }
    })
    const res = await fetch(`${srv.url}/chatapp/createNewChatapp`, { method: 'POST', headers: auth, body, duplex: 'half' } as RequestInit & { duplex: 'half' })
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual(envelope413)
  }
})

it('does not wait for a body past the discard cap: answers 413 at once and closes', async () => {
  const port = Number(new URL(srv.url).port)
  const socket = connect(port, '127.0.0.1')
  let answer = ''
  socket.on('data', (d: Buffer) => (answer += d.toString()))
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.write(
    `POST /chatapp/createNewChatapp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${SERVE_TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{"channel":"sandbox","pad":"`
  )
  // Only the headers and a few bytes are sent: the server must answer without the other 64 MiB.
  await closed
  expect(answer).toMatch(/^HTTP\/1\.1 413 /)
  expect(answer).toMatch(/connection: close/i)
  expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"')
})

it('an upload over the file limit: the 413 envelope names the limit and its setting', async () => {
  const inst = (await serveApi(srv.url, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })).json.data
  const form = new FormData()
  form.set('file', new Blob([new Uint8Array(9 * 1024 * 1024)], { type: 'application/pdf' }), 'big.pdf')
  const res = await fetch(`${srv.url}/attachment?session_id=${inst.session_id}&access_token=${inst.settings.access_token}`, { method: 'POST', headers: { authorization: `Bearer ${SERVE_TOKEN}` }, body: form })
  expect(res.status).toBe(413)
  expect(await res.json()).toEqual({ status: false, message: 'The file is larger than the limit of 8 MB (CHATAPP_MAX_FILE_MB).', error: { code: 'PAYLOAD_TOO_LARGE' } })
})

it('headers larger than the parser takes: 431 with the envelope and the limit, and the server goes on', async () => {
  const res = await fetch(`${srv.url}/chatapp?pad=${'x'.repeat(20 * 1024)}`, { headers: { authorization: `Bearer ${SERVE_TOKEN}` } })
  expect(res.status).toBe(431)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  expect(await res.json()).toEqual({
    status: false,
    message: "The request's headers (with its URL) are larger than the limit of 16 KB. Send long values in the body instead of the query string or a header.",
    error: { code: 'HEADERS_TOO_LARGE' }
  })
  expect((await serveApi(srv.url, 'GET', '/health')).status).toBe(200)
})
