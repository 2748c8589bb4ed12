/**
 * Guessing never locks the owner out, and no web page can make a browser guess (docs/design.md §21
 * "Signing in"): throttles count what is guessed — an unknown token or code per address, a password
 * per login name — and never refuse a valid credential; the password, invite and login-code
 * exchanges and every cookie request refuse what another site's page makes a browser send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { LOCK_AFTER_FAILURES } from '../../src/main/services/people'

let h: Harness
let qs: string
beforeAll(async () => {
  h = await makeHarness({ passwordCostLog2: 12 })
  ;({ qs } = await h.connectedInstance())
})
afterAll(async () => {
  await h?.close()
})

async function person(login: string): Promise<string> {
  const created = await h.call({ method: 'POST', url: '/staff', payload: { name: login, login, role: 'manager' } })
  const code = decodeURIComponent(String(created.json.data.invite_url).split('#invite=')[1]!)
  const password = `pw-${login}-0123456789`
  expect((await h.app.inject({ method: 'POST', url: '/auth/accept-invite', payload: { code, password } })).statusCode).toBe(200)
  return password
}
const signIn = (login: string, password: string, headers: Record<string, string> = {}) =>
  h.app.inject({ method: 'POST', url: '/auth/password', payload: { login, password }, headers })

describe('what is guessed is throttled, never the valid credential', () => {
  it('ten wrong bearer tokens from 127.0.0.1: the owner’s token still works; more wrong ones answer 429', async () => {
    for (let i = 0; i < 10; i++) expect((await h.app.inject({ method: 'GET', url: '/chatapp', headers: { authorization: `Bearer wrong-${i}` } })).statusCode).toBe(401)
    expect((await h.call({ method: 'GET', url: '/chatapp' })).statusCode).toBe(200)
    const { key } = (await h.call({ method: 'POST', url: '/api-keys', payload: { name: 'script', scopes: ['instances:read'] } })).json.data
    expect((await h.app.inject({ method: 'GET', url: '/chatapp', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200)
    const wrong = await h.app.inject({ method: 'GET', url: '/chatapp', headers: { authorization: 'Bearer wrong-again' } })
    expect(wrong.statusCode).toBe(429)
    expect(Number(wrong.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('ten wrong login codes: a right one still signs in', async () => {
    for (let i = 0; i < 11; i++) await h.app.inject({ method: 'POST', url: '/auth/login', payload: { code: `made-up-${i}` } })
    expect((await h.app.inject({ method: 'POST', url: '/auth/login', payload: { code: 'made-up-again' } })).statusCode).toBe(429)
    const right = await h.app.inject({ method: 'POST', url: '/auth/login', payload: { code: h.core.account.issueLoginCode() } })
    expect(right.statusCode).toBe(200)
  })

  it('wrong passwords count per login name: a script guessing other logins from the same address does not lock a person out', async () => {
    const password = await person('pia')
    for (let i = 0; i < 12; i++) await signIn(`nobody${i}`, 'whatever-123')
    expect((await signIn('pia', password)).statusCode).toBe(200)
  })

  it(`a login name no one has locks after ${LOCK_AFTER_FAILURES} wrong passwords, as a real one does (the answers do not tell them apart)`, async () => {
    await person('quinn')
    const ghost: number[] = []
    const real: number[] = []
    for (let i = 0; i < LOCK_AFTER_FAILURES + 1; i++) {
      ghost.push((await signIn('ghost', 'whatever-123')).statusCode)
      real.push((await signIn('quinn', 'whatever-123')).statusCode)
    }
    expect(ghost).toEqual(real)
    expect(ghost.slice(-2)).toEqual([429, 429])
  })
})

describe('another site cannot make a browser sign in, fail or act', () => {
  it('POST /auth/password as text/plain from a foreign Origin is refused and counts as no attempt', async () => {
    const password = await person('rae')
    for (let i = 0; i < LOCK_AFTER_FAILURES + 2; i++) {
      const res = await h.app.inject({ method: 'POST', url: '/auth/password', payload: JSON.stringify({ login: 'rae', password: 'wrong password' }), headers: { 'content-type': 'text/plain', origin: 'https://evil.example' } })
      expect(res.statusCode).toBe(403)
    }
    // A simple request without Origin (an old browser) is still refused by its content type.
    const plain = await h.app.inject({ method: 'POST', url: '/auth/password', payload: JSON.stringify({ login: 'rae', password: 'wrong password' }), headers: { 'content-type': 'text/plain' } })
    expect(plain.statusCode).toBe(415)
    const form = await h.app.inject({ method: 'POST', url: '/auth/accept-invite', payload: 'code=x&password=y', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(form.statusCode).toBe(415)
    expect((await signIn('rae', password)).statusCode).toBe(200)
  })

  it('Sec-Fetch-Site: cross-site is refused on the password route and with the session cookie; same-origin passes', async () => {
    const password = await person('sam')
    expect((await signIn('sam', password, { 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403)
    const session = (await signIn('sam', password, { 'sec-fetch-site': 'same-origin', origin: 'http://localhost:80', host: 'localhost:80' })).json().data
    const cookie = `chatapp_session=${session.token}`
    expect((await h.app.inject({ method: 'GET', url: `/chatapp/instance?${qs}`, headers: { cookie, 'sec-fetch-site': 'cross-site' } })).statusCode).toBe(403)
    expect((await h.app.inject({ method: 'PUT', url: `/chatapp/updateGeneral?${qs}`, payload: { bot_name: 'x' }, headers: { cookie, 'x-csrf-token': session.csrf_token, origin: 'https://evil.example' } })).statusCode).toBe(403)
    expect((await h.app.inject({ method: 'GET', url: `/chatapp/instance?${qs}`, headers: { cookie, 'sec-fetch-site': 'same-origin' } })).statusCode).toBe(200)
  })
})
