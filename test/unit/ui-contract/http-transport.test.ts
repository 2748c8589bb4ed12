/**
 * The UI contract over HTTP: POST /rpc/{method} (bearer token, validation, error codes) and the SSE
 * event stream, on a real listening server with a sandbox core.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { createParser } from 'eventsource-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildApiServer } from '../../../src/main/api/server'
import { startCore, type Core } from '../../../src/main/core'
import { createHandlers } from '../../../src/main/ui-contract/handlers'
import { rpcPlugin } from '../../../src/main/ui-contract/http-transport'
import type { ContractEvent } from '../../../src/shared/contract'
import { BACKUP_CHUNK_BYTES } from '../../../src/shared/backup-chunk'

let core: Core
let app: FastifyInstance
let base: string
let dir: string
const TOKEN = 'test-token-0123456789abcdef'

async function rpc(method: string, body: unknown, token = TOKEN) {
  const res = await fetch(`${base}/rpc/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body)
  })
  return { status: res.status, json: (await res.json()) as any }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-rpc-'))
  core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', apiToken: TOKEN })
  let url = ''
  const handlers = createHandlers(core, { baseUrl: () => url, mode: 'web', defaultChannel: 'sandbox' })
  app = await buildApiServer(core, { host: '127.0.0.1', version: 'test', accountPlugins: [rpcPlugin(core, handlers)] })
  await app.listen({ host: '127.0.0.1', port: 0 })
  base = url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await app.close()
  await core.close()
  await rm(dir, { recursive: true, force: true })
})

describe('POST /rpc/{method}', () => {
  it('refuses a missing or wrong bearer token', async () => {
    const res = await rpc('instances.list', {}, 'wrong-token-000000000000')
    expect(res.status).toBe(401)
  })

  it('answers app.info with the base URL and mode', async () => {
    const res = await rpc('app.info', {})
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ ok: true, data: { baseUrl: base, mode: 'web', defaultChannel: 'sandbox' } })
  })

  it('answers 404 for an unknown method and 400 with field details for a bad input', async () => {
    expect((await rpc('instances.explode', {})).status).toBe(404)
    const bad = await rpc('settings.updateActiveHours', { instanceId: 'x', from: '25:00', to: 'always' })
    expect(bad.status).toBe(400)
    expect(bad.json.ok).toBe(false)
    expect(bad.json.error.code).toBe('VALIDATION_ERROR')
    expect(bad.json.error.details[0].field).toBe('from')
  })

  it('walks an instance from create to a logged conversation, with events on the SSE stream', async () => {
    const stream = await openStream()
    const events = stream.events
    const inst = (await rpc('instances.create', { channel: 'sandbox' })).json.data
    expect(inst.settings.status).toBe('DISCONNECTED')
    expect((await rpc('instances.init', { instanceId: inst._id })).json.data.status).toBe('QR')
    const qr = await rpc('pairing.qr', { instanceId: inst._id })
    expect(qr.json.data.qrDataUrl).toMatch(/^data:image\/png;base64,/)
    const scan = await rpc('pairing.sandboxScan', { instanceId: inst._id })
    expect(scan.json.data.bot_number).toMatch(/^\d+$/)
    const inbound = await rpc('sandbox.inbound', { instanceId: inst._id, chatId: '15550001111', message: 'hello', pushName: 'Ann' })
    expect(inbound.json.data.message).toMatchObject({ text: 'hello', fromMe: false, pushName: 'Ann' })
    const chats = await rpc('inbox.list', { instance_id: inst._id })
    // The inbound message, answered by the bot's default reply.
    expect(chats.json.data).toEqual([expect.objectContaining({ chatId: '15550001111@s.whatsapp.net', name: 'Ann', unread: 1, unanswered: false, last: expect.objectContaining({ source: 'bot' }) })])

    // State events are emitted once the status is on disk, so they may trail the message event.
    await expect.poll(() => events.map((e) => e.type)).toEqual(expect.arrayContaining(['changed', 'state', 'qr', 'message']))
    await expect.poll(() => events.some((e) => e.type === 'state' && e.state === 'CONNECTED')).toBe(true)
    await stream.close()
  })

  it('numbers events and replays the missed ones to a stream that reconnects with Last-Event-ID', async () => {
    const first = await openStream()
    const a = (await rpc('instances.create', { channel: 'sandbox' })).json.data
    await expect.poll(() => first.numbered.length).toBeGreaterThan(0)
    const lastSeen = first.numbered.at(-1)!.id
    const name = first.numbered.at(-1)!.stream
    await first.close()
    // While no stream is open: two more changes.
    const b = (await rpc('instances.create', { channel: 'sandbox' })).json.data
    await rpc('intents.create', { instanceId: a._id, title: 'Hi', keyword: 'hi', reply: 'Hello' })
    const resumed = await openStream(`${name}.${lastSeen}`)
    await expect.poll(() => resumed.events.filter((e) => e.type === 'changed').length).toBeGreaterThanOrEqual(2)
    expect(resumed.events).not.toContainEqual({ type: 'resync' })
    // The two changes come in order; a late status event of the previous test's instance may be among them.
    const ofTheseTwo = resumed.events.filter((e) => 'instanceId' in e && (e.instanceId === a._id || e.instanceId === b._id))
    expect(ofTheseTwo.slice(0, 2)).toEqual([
      { type: 'changed', instanceId: b._id, what: 'instance' },
      { type: 'changed', instanceId: a._id, what: 'intents' }
    ])
    expect(resumed.numbered.map((e) => e.id)).toEqual(resumed.numbered.map((_, i) => lastSeen + 1 + i))
    await resumed.close()

    // An id the server does not know (another run of the app): reload instead.
    // The first thing on the stream is `resync`, nothing replayed before it (a live event of the
    // instances above may follow it).
    const stale = await openStream(`${name}.10000000`)
    await expect.poll(() => stale.events[0]).toEqual({ type: 'resync' })
    await stale.close()
    // A position in another stream's numbering (another worker behind the same proxy, an earlier run):
    // reload, though the number is one this stream has.
    const other = await openStream(`0123456789ab.${lastSeen}`)
    await expect.poll(() => other.events[0]).toEqual({ type: 'resync' })
    await other.close()
    const bare = await openStream(String(lastSeen))
    await expect.poll(() => bare.events[0]).toEqual({ type: 'resync' })
    await bare.close()
  })
})

/** Opens the event stream (optionally resuming after `lastEventId`) and collects its events. */
async function openStream(lastEventId?: string) {
  const events: ContractEvent[] = []
  /** The events with their ids: the stream's name and the number (`<stream>.<n>`). */
  const numbered: Array<{ stream: string; id: number; event: ContractEvent }> = []
  const ctrl = new AbortController()
  const res = await fetch(`${base}/rpc/events`, {
    headers: { authorization: `Bearer ${TOKEN}`, ...(lastEventId !== undefined ? { 'last-event-id': String(lastEventId) } : {}) },
    signal: ctrl.signal
  })
  expect(res.headers.get('content-type')).toContain('text/event-stream')
  const parser = createParser({
    onEvent(message) {
      const event = JSON.parse(message.data) as ContractEvent
      events.push(event)
      if (message.id) numbered.push({ stream: message.id.split('.')[0]!, id: Number(message.id.split('.')[1]), event })
    }
  })
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }))
      if (done) return
      parser.feed(value)
    }
  })()
  return {
    events,
    numbered,
    async close() {
      ctrl.abort()
      await reading
    }
  }
}

describe('the renderer HTTP client against the server', () => {
  it('calls methods, raises ContractErrors with details, and receives events', async () => {
    const { createHttpClient, tokenWorks } = await import('../../../src/renderer/src/transport/http-client')
    const { ContractError } = await import('../../../src/shared/contract')
    expect(await tokenWorks('wrong-token-000000000000', base)).toBe(false)
    expect(await tokenWorks(TOKEN, base)).toBe(true)
    const client = createHttpClient(TOKEN, base)
    const events: ContractEvent[] = []
    const unsubscribe = client.subscribe((e) => events.push(e))
    // A new stream gets no earlier events: act once it is open, that is once a probe event reached it.
    await expect.poll(() => {
      core.events.emit('labels', {})
      return events.some((e) => e.type === 'labels')
    }).toBe(true)
    const inst = await client.call('instances.create', { channel: 'sandbox' })
    await expect.poll(() => events.some((e) => e.type === 'changed' && e.instanceId === inst._id)).toBe(true)
    const err = await client.call('settings.updateGeneral', { instanceId: inst._id, bot_timezone: 'Mars/Olympus' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ContractError)
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'bot_timezone' }] })
    const missing = await client.call('instances.init', { instanceId: 'nope' }).catch((e: unknown) => e)
    expect(missing).toMatchObject({ code: 'NOT_FOUND' })
    unsubscribe()
  })
})

describe('/rpc with a file limit below a backup part', () => {
  it('still takes a whole 4 MiB part of a backup to restore (CHATAPP_MAX_FILE_MB=1)', async () => {
    const small = await mkdtemp(join(tmpdir(), 'chatapp-rpc-small-'))
    const c = await startCore({ dataDir: small, defaultChannel: 'sandbox', apiToken: TOKEN, limits: { fileBytes: 1024 * 1024 } })
    const handlers = createHandlers(c, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' })
    const server = await buildApiServer(c, { host: '127.0.0.1', version: 'test', accountPlugins: [rpcPlugin(c, handlers)] })
    try {
      await server.listen({ host: '127.0.0.1', port: 0 })
      const part = Buffer.alloc(BACKUP_CHUNK_BYTES, 7)
      const res = await fetch(`http://127.0.0.1:${(server.server.address() as AddressInfo).port}/rpc/backups.upload`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ dataBase64: part.toString('base64') })
      })
      expect(res.status).toBe(200)
      expect(((await res.json()) as { data: { size: number } }).data.size).toBe(BACKUP_CHUNK_BYTES)
    } finally {
      await server.close()
      await c.close()
      await rm(small, { recursive: true, force: true })
    }
  })
})
