/**
 * What the updater asks the core before a restart (docs/design.md §19), on a real core with a sandbox instance:
 * a survey waiting for the customer's answer counts until it idles past its expiry, a sending
 * broadcast counts until it is cancelled, and a send counts while it is on its way out; sendsIdle()
 * resolves only once the last one settled.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { SandboxSession } from '../../../src/main/channel/sandbox-channel'
import { internalsOf } from '../../../src/main/core'
import { makeHarness, type Harness } from '../../helpers/harness'
import { ManualClock } from '../../helpers/manual-clock'

let h: Harness
let clock: ManualClock
let qs: string
let creds: { session_id: string; access_token: string }
let instanceId: string

beforeEach(async () => {
  clock = new ManualClock()
  h = await makeHarness({ clock, timers: clock })
  const c = await h.connectedInstance()
  qs = c.qs
  creds = c.creds
  instanceId = c.inst._id
})
afterEach(async () => {
  await h.close()
})

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => h.instanceApi(qs)(method, url, payload)
const inbound = (message: string) => call('POST', '/chatapp/sandbox/inbound', { chatId: '15550001111', message, pushName: 'Ann' })

it('counts a survey in progress until it idles past its expiry', async () => {
  expect(await h.core.activity.snapshot()).toEqual({ broadcasts: 0, surveys: 0, sends: 0 })
  await call('POST', '/survey', { ...creds, title: 'Order', keyword: 'order', reply: 'What would you like?', sort_id: 1 })
  await call('POST', '/survey', { ...creds, title: 'Order', keyword: '', reply: 'Which size?', sort_id: 2 })
  await inbound('order')
  expect((await h.core.activity.snapshot()).surveys).toBe(1)
  clock.advance(29 * 60_000)
  expect((await h.core.activity.snapshot()).surveys).toBe(1)
  clock.advance(2 * 60_000)
  expect((await h.core.activity.snapshot()).surveys).toBe(0)
})

it('counts a sending broadcast, not a cancelled one', async () => {
  const b = (await call('POST', '/broadcast', { send_type: 'individual', to: '15550002222,15550003333,15550004444', message: { text: 'Hi' } })).data
  expect(b.status).toBe('sending')
  expect((await h.core.activity.snapshot()).broadcasts).toBe(1)
  await h.core.broadcasts.idle()
  await call('POST', `/broadcast/${b._id}/cancel`)
  expect((await h.core.activity.snapshot()).broadcasts).toBe(0)
})

it('counts a send while it is on its way out; sendsIdle waits for it', async () => {
  const session = internalsOf(h.core).sessions.get(instanceId) as SandboxSession
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const send = session.send.bind(session)
  // The network holding the message: the send is in flight until the gate opens.
  session.send = async (...args) => {
    await gate
    return send(...args)
  }
  expect(await h.core.activity.sendsIdle()).toBeUndefined()
  const sent = call('POST', '/chatapp/message', { chatId: '15550001111', message: 'Hello' })
  await expect.poll(async () => (await h.core.activity.snapshot()).sends).toBe(1)
  let idle = false
  const waiting = h.core.activity.sendsIdle().then(() => (idle = true))
  await Promise.resolve()
  expect(idle).toBe(false)
  release()
  await sent
  await waiting
  expect(idle).toBe(true)
  expect((await h.core.activity.snapshot()).sends).toBe(0)
})
