/**
 * The baseline server for bench/throughput-bench.ts, in a process of its own so the load generator
 * never shares its event loop: `node --import tsx bench/throughput-target.ts bare` starts a node:http
 * server that reads the JSON body, parses it and answers a small JSON object (the ceiling for any Node
 * server on this machine: the baseline of the ratios).
 *
 * Prints one line `THROUGHPUT-TARGET-READY { url, path, body, token }` (the request to repeat; no
 * token) once ready; exits on SIGTERM.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const [mode] = process.argv.slice(2)
/** Marks the ready line among the app's log lines (pino writes to stdout too). */
const READY = 'THROUGHPUT-TARGET-READY '
const body = JSON.stringify({ chatId: '15550001111', message: 'Your order #1234 is ready for pickup.' })

function ready(url: string, path: string): void {
  process.stdout.write(READY + JSON.stringify({ url, path, body, token: '' }) + '\n')
}

if (mode === 'bare') {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { chatId: string }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify({ status: 'success', message: 'Message sent successfully', data: { chatId: parsed.chatId } }))
    })
  })
  server.listen(0, '127.0.0.1', () => ready(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, '/'))
  process.once('SIGTERM', () => server.close(() => process.exit(0)))
} else {
  console.error(`unknown mode "${mode}": bare`)
  process.exit(2)
}
