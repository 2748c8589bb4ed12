/**
 * The protocol test server's control API (used by the benchmarks and `npm run wa-test-server`): the
 * long poll `POST /control/contacts/{pn}/wait` answers at once when enough messages were decrypted,
 * 408 when they do not come in time, 400 on a bad count; `/control/behaviour` reads and sets the
 * live-service knobs; `GET /control/devices` lists the linked devices' connections. Delivery itself is covered by channel.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWaTestServer, type WaTestServer } from '../support/wa-server/server'

let server: WaTestServer
beforeAll(async () => {
  server = await startWaTestServer({ control: true })
})
afterAll(() => server.close())

const wait = (body: unknown) =>
  fetch(`${server.httpUrl}/control/contacts/15557770002/wait`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

describe('POST /control/contacts/{pn}/wait', () => {
  it('answers the count at once when enough messages arrived', async () => {
    const res = await wait({ count: 0 })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ received: 0 })
  })

  it('answers 408 when the messages do not come in time', async () => {
    const res = await wait({ count: 1, timeoutMs: 50 })
    expect(res.status).toBe(408)
    expect(((await res.json()) as { error: string }).error).toMatch(/decrypted 0 of 1/)
  })

  it('answers 400 on a count that is not a whole number', async () => {
    expect((await wait({ count: 'x' })).status).toBe(400)
  })
})

describe('/control/behaviour', () => {
  const put = (body: unknown) => fetch(`${server.httpUrl}/control/behaviour`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

  it('answers the live defaults and sets knobs by name', async () => {
    const res = await fetch(`${server.httpUrl}/control/behaviour`)
    expect(await res.json()).toMatchObject({ qrRefreshOnScan: true, loginStreamErrors: [], dropAfterLoginMs: null })
    const set = await put({ qrRefreshOnScan: false, loginStreamErrors: [500, 500] })
    expect(set.status).toBe(200)
    expect(await set.json()).toMatchObject({ qrRefreshOnScan: false, loginStreamErrors: [500, 500] })
    expect(server.behaviour.qrRefreshOnScan).toBe(false)
    await put({ qrRefreshOnScan: true, loginStreamErrors: [] })
  })

  it('refuses an unknown knob or a wrong type with 400 and changes nothing', async () => {
    expect((await put({ qrRefreshOnScn: false })).status).toBe(400)
    expect((await put({ dropAfterLoginMs: 'soon' })).status).toBe(400)
    expect(server.behaviour).toMatchObject({ qrRefreshOnScan: true, dropAfterLoginMs: null })
  })
})

describe('GET /control/devices', () => {
  it('answers every device that logged in with its connections; none before a login', async () => {
    const res = await fetch(`${server.httpUrl}/control/devices`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ devices: [] })
    // With logins: test/wa-e2e/worker-failover.test.ts and reconnect.test.ts read the same record in process.
  })
})
