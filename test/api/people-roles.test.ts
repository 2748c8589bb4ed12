/**
 * Every operation with each role (docs/design.md §21 "Audit"): the owner, a manager, an agent given instance A, and
 * API keys, over both faces (the HTTP routes and the UI contract's `/rpc`). An operation the role holds
 * the permission for is never refused with 403; one it does not hold always is, naming the permission,
 * before its input is even read. The expectations come from the roles' rules written out here, not
 * from the code under test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TObject } from 'typebox'
import { makeHarness, type Harness } from '../helpers/harness'
import { OPERATIONS, type OperationName } from '../../src/shared/operations/table'
import type { OperationDef } from '../../src/shared/operations/define'
import { rpcPlugin } from '../../src/main/ui-contract/http-transport'
import { createHandlers } from '../../src/main/ui-contract/handlers'
import { buildApiServer } from '../../src/main/api/server'
import type { FastifyInstance } from 'fastify'

type Def = OperationDef<TObject, unknown, unknown>

/** The roles' rules (docs/design.md §21) as each operation's domain of work, independent of src/shared/access.ts. */
const ADMIN_ONLY = /^(apiToken|appSettings|backups|cluster|staff|apiKeys|audit|updates|customers)\.|^instances\.(create|delete|logout)$|^settings\.(setWebhook|retention)$/
const AGENT_MAY = /^(instances\.(list|stats|info|health)|messages\.\w+|messageLog\.\w+|inbox\.\w+|handoff\.(list|pause|resume)|contacts\.(list|get|export)|contactGroups\.(list|get)|labels\.list|quickReplies\.list|assistant\.(get|usage)|knowledge\.(list|get)|app\.(info|about)|auth\.me)$/

const expected = {
  owner: (_n: string) => true,
  manager: (n: string) => !ADMIN_ONLY.test(n),
  agent: (n: string) => AGENT_MAY.test(n)
}

let h: Harness
let web: FastifyInstance
let a: { inst: { _id: string }; qs: string }
const tokens: Record<'owner' | 'manager' | 'agent', string> = { owner: '', manager: '', agent: '' }

async function staffToken(login: string, role: 'manager' | 'agent', instanceIds?: string[]): Promise<string> {
  const created = await h.call({ method: 'POST', url: '/staff', payload: { name: login, login, role, ...(instanceIds ? { instance_ids: instanceIds } : {}) } })
  const code = decodeURIComponent(String(created.json.data.invite_url).split('#invite=')[1]!)
  const password = 'a long password 123'
  await h.app.inject({ method: 'POST', url: '/auth/accept-invite', payload: { code, password } })
  const res = await h.app.inject({ method: 'POST', url: '/auth/password', payload: { login, password } })
  return res.json().data.token
}

beforeAll(async () => {
  h = await makeHarness({ passwordCostLog2: 12 })
  a = await h.connectedInstance()
  tokens.owner = h.token
  tokens.manager = await staffToken('mia', 'manager')
  tokens.agent = await staffToken('ada', 'agent', [a.inst._id])
  // The UI contract over HTTP, as the headless server serves it.
  web = await buildApiServer(h.core, { host: '127.0.0.1', version: 'test', accountPlugins: [rpcPlugin(h.core, createHandlers(h.core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' }))] })
  await web.ready()
}, 60_000)
afterAll(async () => {
  await web?.close()
  await h.close()
})

const ID = 'aaaaaaaaaaaaaaaaaaaaaaaa'
const httpOps = (Object.entries(OPERATIONS) as Array<[OperationName, Def]>).filter(([n, d]) => d.http && d.scope !== 'public' && n !== 'auth.logout')
const rpcOps = (Object.entries(OPERATIONS) as Array<[OperationName, Def]>).filter(([n, d]) => d.rpc !== undefined && n !== 'auth.logout')

function urlOf(name: OperationName, def: Def): string {
  const path = def.http!.path.replace(/:[a-z_]+/g, ID)
  return def.scope === 'instance' ? `${path}?${a.qs}` : path
}

it('the walk covers the table', () => {
  expect(httpOps.length).toBeGreaterThan(100)
  for (const [name] of httpOps) expect(expected.owner(name)).toBe(true)
})

describe.each(['manager', 'agent'] as const)('%s over HTTP', (role) => {
  it.each(httpOps.map(([n, d]) => [n, d] as const))('%s', async (name, def) => {
    const res = await h.app.inject({ method: def.http!.method, url: urlOf(name, def), headers: { authorization: `Bearer ${tokens[role]}` }, payload: def.http!.method === 'GET' || def.http!.method === 'DELETE' ? undefined : {} })
    if (expected[role](name)) {
      expect(res.statusCode, res.body).not.toBe(403)
      expect(res.statusCode, res.body).not.toBe(401)
    } else {
      expect(res.statusCode, res.body).toBe(403)
      expect(res.json().message).toContain(def.permission)
    }
  })
})

describe.each(['manager', 'agent'] as const)('%s over the UI contract (/rpc)', (role) => {
  it.each(rpcOps.map(([n, d]) => [n, d] as const))('%s', async (name, def) => {
    const res = await web.inject({ method: 'POST', url: `/rpc/${name}`, headers: { authorization: `Bearer ${tokens[role]}` }, payload: def.scope === 'instance' ? { instanceId: a.inst._id } : {} })
    if (expected[role](name)) expect(res.statusCode, res.body).not.toBe(403)
    else {
      expect(res.statusCode, res.body).toBe(403)
      expect(res.json().error.message).toContain(def.permission)
    }
  })
})

describe('the owner', () => {
  it('is refused nothing over HTTP (the account token keeps working as the owner’s key)', async () => {
    const refused: string[] = []
    for (const [name, def] of httpOps) {
      if (/^(backups\.(now|restore|restoreStored)|sandbox\.removeDevice|instances\.stop)$/.test(name)) continue
      const res = await h.app.inject({ method: def.http!.method, url: urlOf(name, def), headers: { authorization: `Bearer ${tokens.owner}` }, payload: def.http!.method === 'GET' || def.http!.method === 'DELETE' ? undefined : {} })
      if (res.statusCode === 403 || res.statusCode === 401) refused.push(`${name} ${res.statusCode}`)
    }
    expect(refused).toEqual([])
  })
})

describe('API keys', () => {
  it('a key holds exactly its scopes: contacts:read reads contacts, and nothing else', async () => {
    const { key } = (await h.call({ method: 'POST', url: '/api-keys', payload: { name: 'crm sync', scopes: ['contacts:read'] } })).json.data
    const allowed: string[] = []
    for (const [name, def] of httpOps) {
      const res = await h.app.inject({ method: def.http!.method, url: urlOf(name, def), headers: { authorization: `Bearer ${key}` }, payload: def.http!.method === 'GET' || def.http!.method === 'DELETE' ? undefined : {} })
      if (res.statusCode !== 403) allowed.push(name)
    }
    expect(allowed.sort()).toEqual(['app.info', 'auth.me', 'contactGroups.get', 'contactGroups.list', 'contacts.export', 'contacts.get', 'contacts.list', 'labels.list'].filter((n) => httpOps.some(([o]) => o === n)).sort())
  })

  it('the UI’s event stream needs a permission to read messages', async () => {
    const { key } = (await h.call({ method: 'POST', url: '/api-keys', payload: { name: 'labels only', scopes: ['contacts:read'] } })).json.data
    const res = await web.inject({ method: 'GET', url: '/rpc/events', headers: { authorization: `Bearer ${key}` } })
    expect(res.statusCode).toBe(403)
    expect(res.json().error.message).toContain('inbox:read')
  })
})
