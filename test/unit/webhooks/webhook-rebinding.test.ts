/**
 * A webhook's address is checked and connected to as one: the transport resolves the receiver's name
 * once per connection and refuses it there when the address is this app's own API, so a name that
 * resolves elsewhere when the URL is checked and to 127.0.0.1 when it is delivered (DNS rebinding)
 * never reaches the API. Real HTTP servers on loopback; the resolver answers the rebinding name.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { OwnApiGuard } from '../../../src/main/webhooks/own-api'
import { undiciTransport, type Lookup } from '../../../src/main/webhooks/webhook-transport'

let api: Server
let receiver: Server
const hits = { api: 0, receiver: 0 }
const portOf = (s: Server) => (s.address() as AddressInfo).port

beforeAll(async () => {
  api = createServer((_req, res) => (hits.api++, res.end('ok')))
  receiver = createServer((_req, res) => (hits.receiver++, res.end('ok')))
  await Promise.all([api, receiver].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))))
})
afterAll(async () => {
  await Promise.all([api, receiver].map((s) => new Promise((resolve) => s.close(resolve))))
})

/** `rebind.test` resolves to loopback at delivery (the check, through the system resolver, finds nothing: not ours). */
const lookup: Lookup = (hostname, _opts, callback) => {
  if (hostname === 'rebind.test') return callback(null, [{ address: '127.0.0.1', family: 4 }])
  callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), [])
}

it('refuses at connect time a name that resolves to the own API, which the URL check let through', async () => {
  const guard = new OwnApiGuard()
  guard.setPort(portOf(api))
  const url = `http://rebind.test:${portOf(api)}/hook`
  expect(await guard.targets(url)).toBe(false)
  const transport = undiciTransport({ refuses: (address, port) => guard.isOwn(address, port), lookup })
  try {
    const signal = AbortSignal.timeout(5000)
    await expect(transport.post(url, { headers: { 'content-type': 'application/json' }, body: '{}', signal })).rejects.toThrow(/own API/)
    expect(hits.api).toBe(0)
    // The same name on another port (a receiver on this machine) is delivered.
    const ok = await transport.post(`http://rebind.test:${portOf(receiver)}/hook`, { headers: { 'content-type': 'application/json' }, body: '{}', signal })
    expect(ok.status).toBe(200)
    expect(hits.receiver).toBe(1)
  } finally {
    await transport.close()
  }
})
