/**
 * Where the assistant's calls may go (src/main/assistant/endpoint-guard.ts): a model on this PC
 * (another loopback port) is reached; this app's own API port is refused when the address is saved and
 * again on the connection itself, by IP and by a name that resolves to this machine, and the server on
 * that port never sees the request (nor the key). Real HTTP servers on loopback.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { EndpointGuard } from '../../../src/main/assistant/endpoint-guard'
import { ModelClient } from '../../../src/main/assistant/model-client'
import { startOpenAiFake, type OpenAiFake } from '../../support/openai-fake'

let own: Server
let ownPort: number
let hits: string[]
let fake: OpenAiFake
let guard: EndpointGuard

beforeEach(async () => {
  hits = []
  own = createServer((req, res) => {
    hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`)
    res.end('{}')
  })
  await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve))
  ownPort = (own.address() as AddressInfo).port
  fake = await startOpenAiFake()
  guard = new EndpointGuard()
  guard.setOwnApiPort(ownPort)
})
afterEach(async () => {
  await guard.close()
  await fake.close()
  await new Promise<void>((resolve) => own.close(() => resolve()))
})

const ask = (baseUrl: string) =>
  new ModelClient(() => guard.dispatcher()).chat({ baseUrl, apiKey: 'sk-never-to-ourselves' }, { model: 'm', messages: [{ role: 'user', content: 'hi' }], maxTokens: 10, timeoutMs: 5000 })

it('reaches a model on another loopback port', async () => {
  await expect(guard.check(fake.baseUrl)).resolves.toBeUndefined()
  expect((await ask(fake.baseUrl)).content).toMatch(/here is the answer/)
})

it('refuses this app’s own API port when saved, by IP and by name', async () => {
  await expect(guard.check(`http://127.0.0.1:${ownPort}/v1`)).rejects.toThrow(/own API/)
  await expect(guard.check(`http://localhost:${ownPort}/v1`)).rejects.toThrow(/own API/)
  await expect(guard.check(`http://[::1]:${ownPort}/v1`)).rejects.toThrow(/own API/)
})

it('refuses the connection to the own API port, so a name that resolves here later is refused too', async () => {
  await expect(ask(`http://127.0.0.1:${ownPort}/v1`)).rejects.toThrow(/could not reach the endpoint: 127\.0\.0\.1:\d+ is this app's own API/)
  await expect(ask(`http://localhost:${ownPort}/v1`)).rejects.toThrow(/localhost:\d+ is this app's own API/)
  expect(hits).toEqual([])
})
