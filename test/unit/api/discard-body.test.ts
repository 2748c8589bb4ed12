/**
 * discardRest on real requests: it reads a refused body to its end, and gives up on
 * one that is not worth the wait — declared or grown past the cap, or stalled past the timeout.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { discardRest, type DiscardCaps } from '../../../src/main/api/discard-body'

let server: Server | undefined
const sockets: Socket[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

/**
 * Sends `head` + `body` from a raw socket to a server that calls discardRest on the request (reading
 * nothing of it first); answers what discardRest resolved to. The socket stays open afterwards.
 */
async function discardOf(head: string, body: string, caps: DiscardCaps): Promise<boolean> {
  const outcome = new Promise<boolean>((resolve) => {
    server = createServer((req: IncomingMessage, res) => {
      void discardRest(req, caps).then((ended) => {
        resolve(ended)
        res.end()
      })
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server!.address() as { port: number }
  const socket = connect(port, '127.0.0.1')
  sockets.push(socket)
  socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\n${body}`)
  return outcome
}

const caps = { maxBytes: 1000, timeoutMs: 60_000 }

it('reads a body within the cap to its end', async () => {
  expect(await discardOf('Content-Length: 500\r\n', 'x'.repeat(500), caps)).toBe(true)
})

it('gives up at once on a body declared past the cap', async () => {
  expect(await discardOf('Content-Length: 1001\r\n', '', caps)).toBe(false)
})

it('gives up on a chunked body that grows past the cap', async () => {
  const chunk = (n: number) => `${n.toString(16)}\r\n${'x'.repeat(n)}\r\n`
  expect(await discardOf('Transfer-Encoding: chunked\r\n', chunk(600) + chunk(600), caps)).toBe(false)
})

it('gives up on a body that stops arriving', async () => {
  expect(await discardOf('Content-Length: 500\r\n', 'x'.repeat(10), { maxBytes: 1000, timeoutMs: 50 })).toBe(false)
})
