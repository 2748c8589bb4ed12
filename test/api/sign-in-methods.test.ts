/**
 * `GET /auth/methods`, which the web UI's first screen asks (no token): a desk where nobody has a
 * password yet says so, and opens on the owner's login link and token; once a person has accepted an
 * invite, the password form comes first.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
beforeEach(async () => {
  h = await makeHarness({ passwordCostLog2: 12 })
})
afterEach(async () => {
  await h.close()
})

const methods = async () => {
  const res = await h.app.inject({ method: 'GET', url: '/auth/methods' })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { passwords: boolean }
}

it('no password anywhere until someone accepts an invite', async () => {
  expect(await methods()).toEqual({ passwords: false })
  const invite = (await h.call({ method: 'POST', url: '/staff', payload: { name: 'Bea', login: 'bea', role: 'agent' } })).json.data
  // Invited, not yet accepted: still no one signs in with a password.
  expect(await methods()).toEqual({ passwords: false })
  const code = /invite=([^&]+)/.exec(invite.invite_url as string)![1]!
  expect((await h.app.inject({ method: 'POST', url: '/auth/accept-invite', payload: { code, password: 'a long enough one' } })).statusCode).toBe(200)
  expect(await methods()).toEqual({ passwords: true })
})
