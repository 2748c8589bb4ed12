/**
 * Behind the documented HTTPS proxy (`CHATAPP_TRUST_PROXY`, docs/deploy.md): the session cookie is
 * `Secure` when the proxy says the client came over https, and the per-address throttle counts the
 * client the proxy names, not the proxy. Without the setting, neither header is believed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { makeHarness, type Harness } from '../helpers/harness'
import { buildApiServer } from '../../src/main/api/server'
import { readServeConfig } from '../../src/main/config'

let h: Harness
let proxied: FastifyInstance
let password: string
beforeAll(async () => {
  h = await makeHarness({ passwordCostLog2: 12 })
  proxied = await buildApiServer(h.core, { host: '0.0.0.0', version: 'test', trustProxy: '10.0.0.2' })
  await proxied.ready()
  const created = await h.call({ method: 'POST', url: '/staff', payload: { name: 'Ann', login: 'ann', role: 'agent' } })
  password = 'a long password 123'
  await h.app.inject({ method: 'POST', url: '/auth/accept-invite', payload: { code: decodeURIComponent(String(created.json.data.invite_url).split('#invite=')[1]!), password } })
})
afterAll(async () => {
  await proxied?.close()
  await h?.close()
})

const signIn = (app: FastifyInstance, remoteAddress: string, headers: Record<string, string>) =>
  app.inject({ method: 'POST', url: '/auth/password', remoteAddress, payload: { login: 'ann', password }, headers })

it('the session cookie is Secure over https through the trusted proxy, and only then', async () => {
  const viaProxy = await signIn(proxied, '10.0.0.2', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' })
  expect(String(viaProxy.headers['set-cookie'])).toMatch(/; HttpOnly; Secure; SameSite=Strict;/)
  const notTrusted = await signIn(proxied, '10.0.0.9', { 'x-forwarded-proto': 'https' })
  expect(String(notTrusted.headers['set-cookie'])).not.toMatch(/Secure/)
  const noSetting = await signIn(h.app, '127.0.0.1', { 'x-forwarded-proto': 'https' })
  expect(String(noSetting.headers['set-cookie'])).not.toMatch(/Secure/)
  const logout = await proxied.inject({ method: 'POST', url: '/auth/logout', remoteAddress: '10.0.0.2', headers: { 'x-forwarded-proto': 'https', authorization: `Bearer ${viaProxy.json().data.token}` } })
  expect(String(logout.headers['set-cookie'])).toMatch(/Max-Age=0/)
  expect(String(logout.headers['set-cookie'])).toMatch(/Secure/)
})

it('the throttle counts the client the trusted proxy names, not the proxy', async () => {
  const from = (client: string) => ({ authorization: 'Bearer wrong', 'x-forwarded-for': client })
  for (let i = 0; i < 10; i++) await proxied.inject({ method: 'GET', url: '/chatapp', remoteAddress: '10.0.0.2', headers: from('203.0.113.5') })
  expect((await proxied.inject({ method: 'GET', url: '/chatapp', remoteAddress: '10.0.0.2', headers: from('203.0.113.5') })).statusCode).toBe(429)
  expect((await proxied.inject({ method: 'GET', url: '/chatapp', remoteAddress: '10.0.0.2', headers: from('203.0.113.6') })).statusCode).toBe(401)
})

it('CHATAPP_TRUST_PROXY is read as addresses and refused when it is not', () => {
  expect(readServeConfig({ CHATAPP_TRUST_PROXY: 'uniquelocal, 10.0.0.0/8' }).trustProxy).toBe('uniquelocal, 10.0.0.0/8')
  expect(readServeConfig({}).trustProxy).toBeUndefined()
  expect(() => readServeConfig({ CHATAPP_TRUST_PROXY: 'x"; rm' })).toThrow(/CHATAPP_TRUST_PROXY/)
})
