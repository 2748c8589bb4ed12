/**
 * Who is calling, and what it costs (docs/design.md §21): the same read (`GET /chatapp/messages`, a chat's
 * newest 20) and the same send (`POST /chatapp/message`, sandbox) under autocannon, made with the
 * account token (the owner: no lookup), a scoped API key (one key row read per request, its last use
 * written at most once a minute) and a staff member's session token (the session and staff rows read
 * per request). The owner's figures are the baseline of the same run; the table gives each caller's
 * requests per second as a ratio of it, with p50/p99 latency. In one process on a temp data dir.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { buildApiServer } from '../src/main/api/server'
import { startCore } from '../src/main/core'

const SECONDS = 6
const CONNECTIONS = 16
const ROUNDS = 3

type Caller = 'owner token' | 'API key' | 'staff session'

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

export async function runPeopleBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-people-bench-'))
  const core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', restoreSessions: false, passwordCostLog2: 14 })
  const app = await buildApiServer(core, { host: '127.0.0.1', version: 'bench' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  try {
    const owner = core.account.token()
    const call = async (method: string, path: string, body?: object, token = owner) => {
      const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })
      return (await res.json()) as { data: any }
    }
    const inst = (await call('POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })).data
    const q = `session_id=${inst.session_id}&access_token=${inst.settings.access_token}`
    await call('POST', '/chatapp/init', { session_id: inst.session_id, access_token: inst.settings.access_token })
    await call('POST', `/chatapp/sandbox/scan?${q}`)
    for (let i = 0; i < 200; i++) await call('POST', `/chatapp/sandbox/inbound?${q}`, { chatId: '15550001111', message: `order ${i}` })
    const key = (await call('POST', '/api-keys', { name: 'bench', scopes: ['messages:read', 'messages:send'] })).data.key as string
    const staff = (await call('POST', '/staff', { name: 'Bench', login: 'bench', role: 'agent', instance_ids: [inst._id] })).data
    await call('POST', '/auth/accept-invite', { code: decodeURIComponent(staff.invite_url.split('#invite=')[1]), password: 'a long password 123' })
    const session = (await call('POST', '/auth/password', { login: 'bench', password: 'a long password 123' })).data.token as string
    const tokens: Record<Caller, string> = { 'owner token': owner, 'API key': key, 'staff session': session }

    const load = (token: string, send: boolean) =>
      autocannon({
        url: send ? `${base}/chatapp/message?${q}` : `${base}/chatapp/messages?${q}&chatId=15550001111&limit=20`,
        method: send ? 'POST' : 'GET',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: send ? JSON.stringify({ chatId: '15550001111', message: 'Your order is ready' }) : undefined,
        connections: CONNECTIONS,
        duration: SECONDS
      })
    for (const send of [false, true]) {
      const runs: Record<Caller, autocannon.Result[]> = { 'owner token': [], 'API key': [], 'staff session': [] }
      // Callers in turn, ROUNDS times (A B C A B C …), so a slow moment of the shared machine hits each.
      for (let r = 0; r < ROUNDS; r++) for (const c of Object.keys(tokens) as Caller[]) runs[c].push(await load(tokens[c], send))
      const rps = (c: Caller) => median(runs[c].map((x) => x.requests.average))
      console.log(`\n${send ? 'POST /chatapp/message (sandbox send)' : 'GET /chatapp/messages (a chat’s newest 20)'}, ${CONNECTIONS} connections, median of ${ROUNDS} × ${SECONDS} s\n`)
      console.log('| caller | req/s | × owner | p50 ms | p99 ms | non-2xx |')
      console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
      for (const c of Object.keys(tokens) as Caller[]) {
        const bad = runs[c].reduce((n, x) => n + x.non2xx + x.errors, 0)
        console.log(`| ${c} | ${rps(c).toFixed(0)} | ${(rps(c) / rps('owner token')).toFixed(2)} | ${median(runs[c].map((x) => x.latency.p50))} | ${median(runs[c].map((x) => x.latency.p99))} | ${bad} |`)
      }
    }
  } finally {
    await app.close()
    await core.close()
    await rm(dir, { recursive: true, force: true })
  }
}
