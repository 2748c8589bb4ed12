/**
 * Instance limits hold everywhere (docs/design.md §21 "Instance limits"): a walk GENERATED from the
 * operation table, so a new operation is covered the day it is added. Every operation × every caller
 * limited to instance A (an agent, a manager, an API key for each scope, the admin key among them) ×
 * every way a request names an instance or a record — the instance's credentials (query string or
 * body), an instance id (path, query, body), `type=all`, and the ids of instance B's own records —
 * over HTTP and over the UI contract's `/rpc`. No answer may carry B's data (every record of B holds a
 * marker), and B must be exactly as it was after each operation's requests.
 *
 * Separately, the account-wide operations (backups and restore, the account token, staff, API keys,
 * app settings, creating instances, the audit log, the cluster, updates, the shared catalogs' changes)
 * are refused to every limited caller, the admin key included; the list of what a limited caller MAY
 * do on the account scope is written out here, not taken from the code under test.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { TObject, TSchema } from 'typebox'
import { makeHarness, type Harness } from '../helpers/harness'
import { multipart, png } from '../helpers/fixtures'
import { OPERATIONS, type OperationName } from '../../src/shared/operations/table'
import type { OperationDef } from '../../src/shared/operations/define'
import { PERMISSIONS } from '../../src/shared/access'
import { rpcPlugin } from '../../src/main/ui-contract/http-transport'
import { createHandlers } from '../../src/main/ui-contract/handlers'
import { buildApiServer } from '../../src/main/api/server'
import { httpShape } from '../../src/main/api/operation-routes'
import { requestExample } from '../../src/main/api/request-example'
import { internalsOf } from '../../src/main/core'

type Def = OperationDef<TObject, unknown, unknown>
type Inst = { inst: { _id: string }; creds: { session_id: string; access_token: string }; qs: string }

/** In every record of B: an answer holding it carries B's data. */
const MARK = `zqb${randomBytes(4).toString('hex')}`
/** B's only customer (a chat A never had). */
const B_CHAT = '15550009999'

let h: Harness
let web: FastifyInstance
let a: Inst
let b: Inst
/** B's records by kind. */
const bIds: Record<string, string> = {}
/** The limited callers: name → bearer token. */
const callers: Array<[string, string]> = []

async function staffToken(login: string, role: 'manager' | 'agent', instanceIds: string[]): Promise<string> {
  const created = await h.call({ method: 'POST', url: '/staff', payload: { name: login, login, role, instance_ids: instanceIds } })
  const code = decodeURIComponent(String(created.json.data.invite_url).split('#invite=')[1]!)
  const password = 'a long password 123'
  await h.app.inject({ method: 'POST', url: '/auth/accept-invite', payload: { code, password } })
  return (await h.app.inject({ method: 'POST', url: '/auth/password', payload: { login, password } })).json().data.token
}

/** An owner's call on instance `on` that must succeed; answers `data`. */
async function seed(on: Inst, method: 'POST' | 'PUT', url: string, payload: object): Promise<any> {
  const res = await h.call({ method, url: `${url}?${on.qs}`, payload })
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json.data
}

/** Records of every kind on an instance (`mark` in their text), answering their ids. */
async function seedRecords(on: Inst, mark: string, chat: string): Promise<Record<string, string>> {
  await seed(on, 'POST', '/chatapp/sandbox/inbound', { chatId: chat, message: `${mark} hello`, pushName: `${mark} Customer` })
  const messages = (await h.call({ method: 'GET', url: `/chatapp/messages?${on.qs}&chatId=${chat}` })).json.data
  const group = await seed(on, 'POST', '/contact_groups', { title: `${mark} group` })
  const contact = await seed(on, 'POST', '/contact', { name: `${mark} contact`, number: chat.replace(/9$/, '8'), group_id: group._id, notes: mark })
  const intent = await seed(on, 'POST', '/intent', { title: `${mark} intent`, keyword: `${mark}kw`, reply: `${mark} reply` })
  const survey = await seed(on, 'POST', '/survey', { title: `${mark} survey`, keyword: `${mark}sv`, reply: `${mark} question`, sort_id: 1 })
  const form = multipart({}, { filename: `${mark}.png`, contentType: 'image/png', data: await png() })
  const attachment = (await h.call({ method: 'POST', url: `/attachment?${on.qs}`, ...form })).json.data
  const schedule = await seed(on, 'POST', '/schedule', { title: `${mark} schedule`, target: { type: 'chat', id: chat }, message: { text: `${mark} weekly` }, repeat: 'weekly', start_at: '2099-10-18T10:00', active: false })
  const broadcast = await seed(on, 'POST', '/broadcast', { send_type: 'individual', to: chat, message: { text: `${mark} news` } })
  await h.call({ method: 'POST', url: `/broadcast/${broadcast._id}/cancel?${on.qs}` })
  await seed(on, 'POST', '/chatapp/handoff/pause', { chatId: chat, minutes: 600 })
  await seed(on, 'PUT', '/chatapp/updateGeneral', { bot_name: `${mark} bot` })
  await seed(on, 'PUT', '/chatapp/assistant', { instructions: `${mark} instructions`, api_key: `${mark}key` })
  const knowledge = await seed(on, 'POST', '/chatapp/knowledge', { title: `${mark} knowledge`, content: `${mark} delivery within 5 km` })
  return { message: messages[messages.length - 1].id, group: group._id, contact: contact._id, intent: intent._id, survey: survey._id, attachment: attachment._id, schedule: schedule._id, broadcast: broadcast._id, knowledge: knowledge._id }
}

beforeAll(async () => {
  h = await makeHarness({ passwordCostLog2: 12 })
  a = await h.connectedInstance()
  b = await h.connectedInstance()
  await seedRecords(a, 'zqa', '15550001119')
  Object.assign(bIds, await seedRecords(b, MARK, B_CHAT))
  // B settles before the walk takes its picture: its broadcast ends (cancelled) through the send
  // governor, and the sandbox acknowledges each send twice (SERVER_ACK, DELIVERY_ACK a moment later);
  // on a loaded machine those landed after the walk began, and every later operation saw "B changed".
  await vi.waitFor(
    async () => {
      const inst = h.core.instances.get(b.inst._id)
      const casts = await h.core.broadcasts.list(inst)
      const sent = (await h.core.log.list(inst, { limit: 1000 })).filter((m) => m.fromMe)
      expect(casts.map((c) => c.status).filter((st) => st !== 'done' && st !== 'cancelled')).toEqual([])
      expect(sent.map((m) => m.status).filter((st) => st !== 'DELIVERY_ACK' && st !== 'READ')).toEqual([])
    },
    { timeout: 30_000, interval: 100 }
  )
  web = await buildApiServer(h.core, { host: '127.0.0.1', version: 'test', accountPlugins: [rpcPlugin(h.core, createHandlers(h.core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' }))] })
  await web.ready()
  callers.push(['agent limited to A', await staffToken('ada', 'agent', [a.inst._id])])
  callers.push(['manager limited to A', await staffToken('mia', 'manager', [a.inst._id])])
  for (const scope of PERMISSIONS) {
    const { key } = (await h.call({ method: 'POST', url: '/api-keys', payload: { name: `${scope} on A`, scopes: [scope], instance_ids: [a.inst._id] } })).json.data
    callers.push([`key ${scope} limited to A`, key])
  }
}, 120_000)
afterAll(async () => {
  await web?.close()
  await h?.close()
})

/** The id of B's record an input field names, by the operation's domain; undefined for fields naming no record of an instance. */
function bRecordFor(name: OperationName, field: string): unknown {
  const domain = name.split('.')[0]!
  switch (field) {
    case 'instanceId':
    case 'instance_id':
      return b.inst._id
    case 'instance_ids':
      return [b.inst._id]
    case 'group_id':
      return bIds.group
    case 'contactId':
      return bIds.contact
    case 'attachmentId':
      return bIds.attachment
    case 'stepIds':
      return [bIds.survey]
    case 'chatId':
    case 'to':
      return B_CHAT
    case 'before':
    case 'after':
      return bIds.message
    case 'id': {
      const byDomain: Record<string, string | undefined> = {
        intents: bIds.intent,
        surveys: bIds.survey,
        attachments: bIds.attachment,
        messages: bIds.message,
        messageLog: bIds.message,
        contacts: bIds.contact,
        contactGroups: bIds.group,
        broadcasts: bIds.broadcast,
        schedules: bIds.schedule,
        knowledge: bIds.knowledge
      }
      return byDomain[domain]
    }
    default:
      return undefined
  }
}

/** An input for `name` that names B wherever it can: B's record ids, `type=all`, B's instance. */
function inputNamingB(name: OperationName, def: Def): Record<string, unknown> {
  const input: Record<string, unknown> = requestExample(def.input as never)
  for (const [field, schema] of Object.entries(def.input.properties as Record<string, TSchema>)) {
    const v = bRecordFor(name, field)
    if (v !== undefined) input[field] = v
    if (field === 'type' && JSON.stringify(schema).includes('"all"')) input[field] = 'all'
  }
  return input
}

interface Request {
  face: 'http' | 'rpc'
  variant: string
  opts: InjectOptions
}

/** The HTTP request of `name` for `input`: path params, query fields and the body where the table puts them. */
function httpRequest(def: Def, input: Record<string, unknown>, query: Record<string, string>, bodyExtra: Record<string, unknown>, token: string): InjectOptions {
  const http = def.http!
  const shape = httpShape(def, http)
  let path = http.path
  for (const [param, field] of shape.paramFields) path = path.replace(`:${param}`, encodeURIComponent(String(input[field] ?? 'aaaaaaaaaaaaaaaaaaaaaaaa')))
  const qs = new URLSearchParams(query)
  const body: Record<string, unknown> = { ...bodyExtra }
  for (const [field, value] of Object.entries(input)) {
    if (shape.paramFields.some(([, f]) => f === field)) continue
    if (shape.queryFields.includes(field)) qs.set(field, Array.isArray(value) ? value.join(',') : String(value))
    else body[field] = value
  }
  const url = `${path}${qs.size ? `?${qs}` : ''}`
  const headers = { authorization: `Bearer ${token}` }
  if (http.rawBody) return { method: http.method, url, headers: { ...headers, 'content-type': 'application/octet-stream' }, payload: Buffer.from('not a backup') }
  if (http.multipart && !http.multipart.alsoJson) {
    const form = multipart(Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])), { filename: 'x.png', contentType: 'image/png', data: Buffer.from('x') })
    return { method: http.method, url, headers: { ...headers, ...form.headers }, payload: form.payload }
  }
  return { method: http.method, url, headers, payload: body }
}

/** Every request of the walk for one operation and caller. */
function requestsOf(name: OperationName, def: Def, token: string): Request[] {
  const input = inputNamingB(name, def)
  const out: Request[] = []
  if (def.http && def.scope !== 'public') {
    if (def.scope === 'instance') {
      out.push({ face: 'http', variant: "A's credentials, B's records", opts: httpRequest(def, input, a.creds, {}, token) })
      out.push({ face: 'http', variant: "B's credentials (query)", opts: httpRequest(def, input, b.creds, {}, token) })
      out.push({ face: 'http', variant: "B's credentials (body)", opts: httpRequest(def, input, {}, b.creds, token) })
    } else {
      out.push({ face: 'http', variant: 'naming B', opts: httpRequest(def, input, {}, {}, token) })
    }
  }
  if (def.rpc !== undefined) {
    const rpc = (variant: string, payload: object): Request => ({ face: 'rpc', variant, opts: { method: 'POST', url: `/rpc/${name}`, headers: { authorization: `Bearer ${token}` }, payload } })
    if (def.scope === 'instance') {
      out.push(rpc("instance A, B's records", { ...input, instanceId: a.inst._id }))
      out.push(rpc('instance B', { ...input, instanceId: b.inst._id }))
    } else {
      out.push(rpc('naming B', input))
    }
  }
  return out
}

/** Everything B holds, read as the owner through the core (so nothing a caller did to the account token or the faces hides a change). */
async function snapshotOfB(): Promise<string> {
  const { core } = h
  const inst = core.instances.list().find((i) => i._id === b.inst._id)
  if (!inst) return 'B was deleted'
  const { updatedAt: _u, ...record } = inst as unknown as Record<string, unknown>
  const settings = { ...(inst.settings as unknown as Record<string, unknown>) }
  return JSON.stringify({
    record: { ...record, settings },
    intents: await core.intents.list(inst),
    surveys: await core.surveys.list(inst),
    attachments: await core.attachments.list(inst),
    contacts: await core.contacts.get(inst, bIds.contact!),
    groups: await core.contacts.group(inst, bIds.group!),
    messages: await core.log.list(inst, { limit: 1000 }),
    broadcasts: await core.broadcasts.list(inst),
    schedules: await core.schedules.list(inst),
    handoff: await core.handoff.list(inst._id),
    chat: await core.inbox.get(inst._id, `${B_CHAT}@s.whatsapp.net`),
    assistant: await core.assistant.get(inst),
    assistantKey: await internalsOf(core).storage.repos.assistant.key(inst._id),
    knowledge: await core.knowledge.list(inst, { limit: 500 })
  })
}

/** Operations left out of the walk: they name no instance and would end the caller's own session. */
const SKIPPED = new Set<OperationName>(['auth.logout'])
/** Every operation with a caller; deleting an instance last (done wrong, it would hide what every other one does to B). */
const walked = (Object.entries(OPERATIONS) as Array<[OperationName, Def]>)
  .filter(([n, d]) => d.scope !== 'public' && !SKIPPED.has(n))
  .sort(([x], [y]) => Number(x === 'instances.delete') - Number(y === 'instances.delete'))
/** B as it was before the walk: nothing a limited caller does may change it. */
let bAtStart = ''

describe('no caller limited to A reads or changes B', () => {
  it('the walk covers every operation with a face, and names B in each', () => {
    expect(walked.length).toBeGreaterThan(140)
    for (const [name, def] of walked) expect(requestsOf(name, def, 'x').length, name).toBeGreaterThan(0)
  })

  it.each(walked.map(([n, d]) => [n, d] as const))('%s', async (name, def) => {
    bAtStart ||= await snapshotOfB()
    const leaks: string[] = []
    for (const [who, token] of callers) {
      for (const { face, variant, opts } of requestsOf(name, def, token)) {
        const res = await (face === 'http' ? h.app : web).inject(opts)
        const seen = `${JSON.stringify(res.headers)}\n${res.body}`
        if (seen.includes(MARK)) leaks.push(`${who} · ${face} · ${variant}: ${res.statusCode} ${res.body.slice(0, 200)}`)
        if (res.statusCode >= 500) leaks.push(`${who} · ${face} · ${variant}: a ${res.statusCode} (${res.body.slice(0, 200)})`)
      }
      // A caller's change to A (a stop, a logout) must not hide the next caller's requests.
      if (h.core.instances.list().find((i) => i._id === a.inst._id)?.settings.status !== 'CONNECTED') await reconnectA()
    }
    expect(leaks).toEqual([])
    expect(await snapshotOfB(), 'B changed').toBe(bAtStart)
  })
})

/** Walks A back to CONNECTED as the owner (a limited caller may stop or log out its own instance). */
async function reconnectA(): Promise<void> {
  if (!h.core.instances.list().some((i) => i._id === a.inst._id)) return
  await h.call({ method: 'POST', url: '/chatapp/init', payload: a.creds })
  await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${a.qs}` })
}

/** What a caller limited to some instances may do on the account scope (the rule, written out). */
const LIMITED_MAY = new Set<string>(['app.info', 'app.about', 'auth.me', 'auth.logout', 'instances.list', 'instances.delete', 'inbox.list', 'labels.list', 'quickReplies.list'])

describe('account-wide operations need a caller without an instance limit', () => {
  const accountOps = (Object.entries(OPERATIONS) as Array<[OperationName, Def]>).filter(([n, d]) => d.scope === 'account' && !SKIPPED.has(n))

  it.each(accountOps.filter(([n]) => !LIMITED_MAY.has(n)).map(([n, d]) => [n, d] as const))('%s is refused (403) to the admin key limited to A, on both faces', async (name, def) => {
    const token = callers.find(([who]) => who === 'key admin limited to A')![1]
    for (const { face, opts } of requestsOf(name, def, token)) {
      const res = await (face === 'http' ? h.app : web).inject(opts)
      expect(res.statusCode, `${face}: ${res.body}`).toBe(403)
      expect(res.body).toMatch(/instance limit/)
    }
  })

  it('the admin key limited to A cannot delete B, read the account token, download a backup or mint a key without a limit', async () => {
    const token = callers.find(([who]) => who === 'key admin limited to A')![1]
    const headers = { authorization: `Bearer ${token}` }
    expect((await h.app.inject({ method: 'DELETE', url: `/chatapp/${b.inst._id}`, headers })).statusCode).toBe(404)
    expect(h.core.instances.list().some((i) => i._id === b.inst._id)).toBe(true)
    expect((await h.app.inject({ method: 'GET', url: '/backup', headers })).statusCode).toBe(403)
    expect((await web.inject({ method: 'POST', url: '/rpc/apiToken.get', headers, payload: {} })).statusCode).toBe(403)
    const minted = await h.app.inject({ method: 'POST', url: '/api-keys', headers, payload: { name: 'wider', scopes: ['admin'] } })
    expect(minted.statusCode).toBe(403)
    expect((await h.call({ method: 'GET', url: '/api-keys' })).json.data.some((k: { name: string }) => k.name === 'wider')).toBe(false)
  })

  it("type=all means every instance the caller may reach: A's records, never B's", async () => {
    const token = callers.find(([who]) => who === 'agent limited to A')![1]
    const headers = { authorization: `Bearer ${token}` }
    const log = await h.app.inject({ method: 'GET', url: `/message-log?${a.qs}&type=all`, headers })
    expect(log.statusCode).toBe(200)
    expect(log.json().data.length).toBeGreaterThan(0)
    expect(log.json().data.every((m: { instance_id: string }) => m.instance_id === a.inst._id)).toBe(true)
    const contacts = await web.inject({ method: 'POST', url: '/rpc/contacts.list', headers, payload: { instanceId: a.inst._id, type: 'all' } })
    expect(new Set(contacts.json().data.items.map((c: { instance_id: string }) => c.instance_id))).toEqual(new Set([a.inst._id]))
    const other = await h.app.inject({ method: 'GET', url: `/message-log/${bIds.message}?${a.qs}`, headers })
    expect(other.statusCode).toBe(404)
    // The owner still reaches the whole account.
    const owner = await h.call({ method: 'GET', url: `/message-log/${bIds.message}?${a.qs}` })
    expect(owner.json.data.instance_id).toBe(b.inst._id)
  })
})
