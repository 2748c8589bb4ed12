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
 * - `sqlite-floor`: the least a send costs under the storage contract (docs/design.md §14, §20: the
 *   message with its search index and its conversation, in a durable commit, and the two delivery
 *   acknowledgements written later): the same writes the app's writer makes for one send
 *   (store/repos/message-repo.ts `append` and `recordStatuses`), as prepared statements on one
 *   connection in this process's main thread, group-committed (the requests of one turn of the event
 *   loop in one transaction). No threads, no query builder, no validation, no channel: a ceiling for
 *   the app's rate on this machine, not a design (it blocks its event loop).
 *
 * Prints one line `THROUGHPUT-TARGET-READY { url, path, body, token }` (the request to repeat; no
 * token) once ready; exits on SIGTERM.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import { appSchemaConnection, sendWrites } from './app-schema'

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
  // One commit per request.
  const { db } = await appSchemaConnection('chatapp-throughput-sqlite-')
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
} else if (mode === 'sqlite-floor') {
  const { db } = await appSchemaConnection('chatapp-throughput-floor-')
  const writes = sendWrites(db)
  let n = 0
  let waiting: Array<{ chatId: string; text: string; done: (id: string) => void }> = []
  // The ids of the last batch, acknowledged in the next one (a channel's acks come after the send).
  let sent: string[] = []
  const flush = () => {
    const batch = waiting
    waiting = []
    const ids: string[] = []
    db.exec('BEGIN')
    for (const m of batch) {
      const id = `B${(++n).toString(16).padStart(12, '0')}`
      writes.send(id, m.chatId, m.text)
      ids.push(id)
    }
    writes.acknowledge(sent, 'SERVER_ACK')
    writes.acknowledge(sent, 'DELIVERY_ACK')
    db.exec('COMMIT')
    sent = ids
    batch.forEach((m, i) => m.done(ids[i]!))
  }
  const app = Fastify()
  app.post('/', (req, reply) => {
    const { chatId, message } = req.body as { chatId: string; message: string }
    waiting.push({ chatId: `${chatId}@s.whatsapp.net`, text: message, done: (id) => void reply.send({ status: 'success', message: 'Message sent successfully', data: { id } }) })
    if (waiting.length === 1) setImmediate(flush)
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  ready(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, '/')
  process.once('SIGTERM', () => void app.close().then(() => (db.close(), process.exit(0))))
} else {
  console.error(`unknown mode "${mode}": bare, fastify-sqlite or sqlite-floor`)
  process.exit(2)
}
