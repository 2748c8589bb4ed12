/**
 * The headless contract (docs/design.md §2) on the real process: ready line, /health, generated token,
 * clean shutdown on SIGTERM, one process per data dir, and crash safety: a kill -9 in the middle of
 * a burst of writes leaves data files that load, with every write that was answered.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { internalsOf, startCore } from '../../src/main/core'
import { startServe, type ServeProcess, SERVE_TOKEN, serveApi } from '../helpers/serve-process'

let dir: string
const started: ServeProcess[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-serve-'))
})
afterEach(async () => {
  // A failed assertion must not leave a server running.
  for (const s of started.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
  await rm(dir, { recursive: true, force: true })
})

async function serve(env: Record<string, string>): Promise<ServeProcess> {
  const s = await startServe(env)
  started.push(s)
  return s
}

const TOKEN = SERVE_TOKEN
const api = serveApi


it('starts, answers /health, shuts down cleanly on SIGTERM, refuses a second process', async () => {
  const srv = await serve({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox' })
  expect(srv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  const token = /API token: (\S+)/.exec(srv.output())?.[1]
  expect(token).toMatch(/^[\w-]{40,}$/)
  const health = await (await fetch(`${srv.url}/health`)).json()
  expect(health).toMatchObject({ status: true, message: 'ok', data: { version: expect.any(String) } })
  const second = await serve({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0' }).catch((e: Error) => e)
  expect(String(second)).toMatch(/already using the data dir/)
  srv.child.kill('SIGTERM')
  expect(await srv.exited).toBe(0)
}, 40_000)

it('refuses bad configuration with a message naming the variable', async () => {
  const err = await serve({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: 'eighty' }).catch((e: Error) => e)
  expect(String(err)).toMatch(/CHATAPP_PORT must be a port number/)
})

it('kill -9 during a burst of writes loses no answered write', async () => {
  const srv = await serve({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: TOKEN })
  const inst = (await api(srv.url, 'POST', '/chatapp/createNewChatapp', {})).json.data
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  await api(srv.url, 'POST', '/chatapp/init', creds)
  await api(srv.url, 'POST', `/chatapp/sandbox/scan?${new URLSearchParams(creds)}`)

  const answeredIntents: string[] = []
  const answeredMessages: string[] = []
  let stop = false
  const worker = async (n: number) => {
    for (let i = 0; !stop; i++) {
      try {
        if (i % 2 === 0) {
          const r = await api(srv.url, 'POST', '/intent', { ...creds, title: `w${n}-${i}`, keyword: `k${n}x${i}`, reply: 'r' })
          if (r.status === 200) answeredIntents.push(r.json.data._id)
        } else {
          const r = await api(srv.url, 'POST', `/chatapp/message?${new URLSearchParams(creds)}`, { chatId: '15550001111', message: `m${n}-${i}` })
          if (r.status === 200) answeredMessages.push(r.json.data.message.key.id)
        }
      } catch {
        return // the server died mid-request: that write was never answered
      }
    }
  }
  const workers = Array.from({ length: 8 }, (_, n) => worker(n))
  while (answeredIntents.length < 60) await new Promise((r) => setTimeout(r, 10))
  srv.child.kill('SIGKILL')
  stop = true
  await Promise.all(workers)
  expect(await srv.exited).toBe('SIGKILL')

  const core = await startCore({ dataDir: dir, restoreSessions: false })
  try {
    const ids = new Set((await internalsOf(core).storage.repos.intents.ofInstance(inst._id)).map((i) => i._id))
    const missing = answeredIntents.filter((id) => !ids.has(id))
    expect(missing).toEqual([])
    const logged = new Set((await internalsOf(core).storage.repos.messages.list(inst._id, { limit: 1000 })).map((m) => m.id))
    expect(answeredMessages.filter((id) => !logged.has(id))).toEqual([])
    expect(answeredMessages.length).toBeGreaterThan(10)
  } finally {
    await core.close()
  }
}, 60_000)

it('kill -9 under 200 concurrent sends: every answered message is in the log after the restart, and its chat counts it', async () => {
  const srv = await serve({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: TOKEN, CHATAPP_SEND_INTERVAL_MS: '0', CHATAPP_SEND_JITTER_MS: '0' })
  const inst = (await api(srv.url, 'POST', '/chatapp/createNewChatapp', {})).json.data
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  await api(srv.url, 'POST', '/chatapp/init', creds)
  await api(srv.url, 'POST', `/chatapp/sandbox/scan?${new URLSearchParams(creds)}`)
  const query = new URLSearchParams(creds).toString()

  const answered: string[] = []
  let stop = false
  const sender = async (n: number) => {
    for (let i = 0; !stop; i++) {
      try {
        const r = await api(srv.url, 'POST', `/chatapp/message?${query}`, { chatId: `1555000${String(n % 20).padStart(4, '0')}`, message: `order ${n}-${i}` })
        if (r.status === 200) answered.push(r.json.data.message.key.id)
      } catch {
        return // the server died mid-request: that send was never answered
      }
    }
  }
  const senders = Array.from({ length: 200 }, (_, n) => sender(n))
  await vi.waitFor(() => expect(answered.length).toBeGreaterThanOrEqual(400), { timeout: 60_000, interval: 20 })
  srv.child.kill('SIGKILL')
  stop = true
  await Promise.all(senders)
  expect(await srv.exited).toBe('SIGKILL')

  const core = await startCore({ dataDir: dir, restoreSessions: false })
  try {
    const { repos } = internalsOf(core).storage
    const logged = new Set<string>()
    let before: { id: string } | undefined
    for (;;) {
      const page = await repos.messages.list(inst._id, { limit: 1000, ...(before ? { before } : {}) })
      if (page.length === 0) break
      for (const m of page) logged.add(m.id)
      before = { id: page[0]!.id }
    }
    expect(answered.filter((id) => !logged.has(id))).toEqual([])
    // The inbox counted what the log holds: nothing half-stored between a message and its chat.
    const chats = await repos.conversations.list([inst._id], {}, 100, Date.now())
    const counted = await core.log.page([inst._id], 1, 1)
    expect(counted.total).toBe(logged.size)
    expect(chats.length).toBe(20)
  } finally {
    await core.close()
  }
}, 120_000)

it('prints the token only when it generated it, and a one-time login link (not the token) at every start', async () => {
  const first = await serve({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox' })
  const token = /API token: (\S+)/.exec(first.output())?.[1]
  expect(token).toMatch(/^\S{16,}$/)
  first.child.kill('SIGTERM')
  expect(await first.exited).toBe(0)
  const second = await serve({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox' })
  expect(second.output()).not.toContain('API token:')
  expect(second.output()).not.toContain(token!)
  const code = /#login=(\S+)/.exec(second.output())?.[1]
  expect(code).toMatch(/^\S{16,}$/)
  const login = (await (await fetch(`${second.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) })).json()) as { data: { token: string } }
  expect(login.data.token).toBe(token)
  second.child.kill('SIGTERM')
  expect(await second.exited).toBe(0)
}, 40_000)
