/**
 * The baseline servers for bench/throughput-bench.ts, each in a process of its own so the load
 * generator never shares its event loop:
 *
 * - `bare`: a node:http server that reads the JSON body, parses it and answers a small JSON object
 *   (the ceiling for any Node server on this machine).
 * - `fastify-sqlite`: a minimal Fastify route that does what a durable send must at least do: parse
 *   the JSON body and store one row in the app's `messages` table (its schema, indexes and search
 *   trigger, made by the app's migrations) with one durable commit (WAL, synchronous=FULL), then answer
 *   (the fair baseline of a send: the app must reach ≥ 0.7× its rate).
 *
 * Prints one line `THROUGHPUT-TARGET-READY { url, path, body, token }` (the request to repeat; no
 * token) once ready; exits on SIGTERM.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import Fastify from 'fastify'
import { openDatabase } from '../src/main/store/db/database'

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
} else if (mode === 'fastify-sqlite') {
  const file = join(mkdtempSync(join(tmpdir(), 'chatapp-throughput-sqlite-')), 'chatapp.db')
  // The app's schema, made by its migrations; then one plain connection, one commit per request.
  await (await openDatabase(file)).close()
  const db = new DatabaseSync(file)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL')
  const insert = db.prepare(
    "INSERT INTO messages (instance_id, id, chat_id, from_me, push_name, type, text, timestamp, status, source) VALUES ('i', ?, ?, 1, NULL, 'text', ?, ?, 'SERVER_ACK', 'api')"
  )
  let n = 0
  const app = Fastify()
  app.post('/', async (req) => {
    const { chatId, message } = req.body as { chatId: string; message: string }
    const id = `B${(++n).toString(16).padStart(12, '0')}`
    insert.run(id, `${chatId}@s.whatsapp.net`, message, Date.now())
    return { status: 'success', message: 'Message sent successfully', data: { id } }
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  ready(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, '/')
  process.once('SIGTERM', () => void app.close().then(() => (db.close(), process.exit(0))))
} else {
  console.error(`unknown mode "${mode}": bare or fastify-sqlite`)
  process.exit(2)
}
