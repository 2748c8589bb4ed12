/**
 * One operation table, every face generated from it: each operation with an `http` facet is a route
 * in the OpenAPI document under its name (operationId) with the table's input fields; each with an
 * `rpc` facet is a contract method whose schema is the same input (plus `instanceId`); and both faces
 * check input with that one schema, so a bad input gets the same field problems from either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OPERATION_DOMAINS, OPERATIONS, type OperationName } from '../../src/shared/operations/table'
import { CONTRACT_METHODS, contractInputSchema } from '../../src/shared/contract'
import { RUNNERS } from '../../src/main/operations/runners'
import { audited } from '../../src/main/operations/invoke'
import { createHandlers, dispatch } from '../../src/main/ui-contract/handlers'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
let doc: { paths: Record<string, Record<string, { operationId?: string; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; type?: string; format?: string } }> }; parameters?: Array<{ name: string; in: string }> }>> }
beforeAll(async () => {
  h = await makeHarness()
  doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
})
afterAll(async () => {
  await h.close()
})

const names = Object.keys(OPERATIONS) as OperationName[]

/** Every documented operation of the OpenAPI document, by operationId. */
function documented() {
  const out = new Map<string, { path: string; method: string; fields: Set<string>; rawBody: boolean }>()
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!operation.operationId) continue
      const fields = new Set<string>([...(operation.parameters ?? []).map((p) => p.name)])
      for (const content of Object.values(operation.requestBody?.content ?? {})) for (const f of Object.keys(content.schema.properties ?? {})) fields.add(f)
      const octets = operation.requestBody?.content['application/octet-stream']?.schema
      out.set(operation.operationId, { path, method, fields, rawBody: octets?.type === 'string' && octets.format === 'binary' })
    }
  }
  return out
}

describe('the operation table', () => {
  it('defines each operation in exactly one domain file (a name repeated in two would silently replace the first)', () => {
    const defined = Object.values(OPERATION_DOMAINS).flatMap((domain) => Object.keys(domain))
    expect(defined.length).toBe(names.length)
    expect(new Set(defined).size).toBe(defined.length)
  })

  it('gives every operation the audit log records a past-tense text for the People → Audit page, and no other one', () => {
    const names = Object.keys(OPERATIONS) as OperationName[]
    const texts = Object.fromEntries(names.map((n) => [n, (OPERATIONS[n] as { audit?: string }).audit]))
    // The staff service records an accepted invite itself (a public operation: no caller to audit yet).
    const recorded = (n: OperationName) => audited(n) || n === 'auth.acceptInvite'
    expect(names.filter((n) => recorded(n) && !texts[n])).toEqual([])
    expect(names.filter((n) => !recorded(n) && texts[n])).toEqual([])
  })

  it('has one runner per operation and nothing else', () => {
    expect(Object.keys(RUNNERS).sort()).toEqual([...names].sort())
  })

  it('generates a documented route for every HTTP operation, with every input field', () => {
    const routes = documented()
    for (const name of names) {
      const http = OPERATIONS[name].http
      if (!http) {
        expect(routes.has(name), `${name} has no HTTP facet, so no route`).toBe(false)
        continue
      }
      const route = routes.get(name)
      expect(route, name).toMatchObject({ method: http.method.toLowerCase(), path: http.path.replace(/:(\w+)/g, '{$1}') })
      if (http.rawBody) {
        // The whole body is the file (input `file`), documented as one binary octet-stream.
        expect(route!.rawBody, name).toBe(true)
        continue
      }
      const paramNames = new Map(Object.entries(http.params ?? {}).map(([p, field]) => [field, p]))
      for (const field of Object.keys(OPERATIONS[name].input.properties)) {
        expect(route!.fields.has(paramNames.get(field) ?? field), `${name}: ${field}`).toBe(true)
      }
      if (OPERATIONS[name].scope === 'instance') expect(route!.fields.has('session_id'), name).toBe(true)
    }
  })

  it('generates a contract method for every RPC operation, with the same input schema', () => {
    expect([...CONTRACT_METHODS].sort()).toEqual(names.filter((n) => OPERATIONS[n].rpc !== undefined).sort())
    for (const method of CONTRACT_METHODS) {
      const { instanceId, ...props } = contractInputSchema(method).properties
      const { instanceId: own, ...expected } = OPERATIONS[method].input.properties as Record<string, unknown>
      expect(props, method).toEqual(expected)
      // The UI names the instance of instance-scoped operations (and of instances.delete) by id.
      expect(instanceId !== undefined, method).toBe(OPERATIONS[method].scope === 'instance' || own !== undefined)
    }
  })

  it('refuses a bad input with the same field problems on both faces', async () => {
    const { inst, creds } = await h.connectedInstance()
    const handlers = createHandlers(h.core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' })
    const bad = { title: '', keyword: 'hi', reply: 'Hello', action: { send_webhook: 'yes' } }
    const http = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, ...bad } })
    const rpc = await dispatch(handlers, 'intents.create', { instanceId: inst._id, ...bad }, () => {})
    expect(http.statusCode).toBe(400)
    expect(rpc).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } })
    const fields = (details: Array<{ field: string }>) => details.map((d) => d.field).sort()
    expect(fields(http.json.error.details)).toEqual(['action.send_webhook', 'title'])
    expect(fields(rpc.ok ? [] : rpc.error.details!)).toEqual(fields(http.json.error.details))
  })
})
