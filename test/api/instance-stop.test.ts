/**
 * Instance health (docs/design.md §16 "Instances"): the owner's Stop keeps the credentials and ends reconnect attempts;
 * the instance remembers when it last connected.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
const now = Date.parse('2026-11-18T12:00:00.000Z')
beforeEach(async () => {
  h = await makeHarness({ clock: { now: () => now } })
})
afterEach(async () => {
  await h.close()
})

it('stops a session with POST /chatapp/stop, keeps last_connected_at, and init starts it again', async () => {
  const { inst, qs } = await h.connectedInstance()
  expect(h.core.instances.get(inst._id).settings.last_connected_at).toBe(new Date(now).toISOString())
  const stop = await h.call({ method: 'POST', url: `/chatapp/stop?${qs}` })
  expect(stop.statusCode, stop.body).toBe(200)
  expect(stop.json).toMatchObject({ message: 'Chatapp stopped successfully!', data: { status: 'DISCONNECTED' } })
  expect(h.core.instances.get(inst._id).settings).toMatchObject({ status: 'DISCONNECTED', last_connected_at: new Date(now).toISOString() })
  // Sends are refused while stopped; init starts the session again.
  expect((await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'hi' } })).statusCode).toBe(409)
  expect((await h.call({ method: 'POST', url: `/chatapp/init?${qs}` })).statusCode).toBe(200)
})
