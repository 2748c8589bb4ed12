/**
 * The OpenAI-compatible fake endpoint (test/support/openai-fake.ts) in a process of its own, for the
 * assistant bench: the desk's own time is measured on the main thread, and an endpoint in the same
 * process would add its own work and garbage there (parsing each prompt, keeping every request),
 * which the desk would then pay in its collections. Every chat call answers at once with
 * `{ reply, usage }` as the first argument (JSON) says.
 *
 * Prints `OPENAI-FAKE-READY <baseUrl>` once listening. On stdin, `last\n` prints
 * `OPENAI-FAKE-LAST <json>`: the latest chat request's body (the bench's bare-fetch baseline sends
 * it again); the records are then cleared, so the process keeps only what came since.
 */
import { createInterface } from 'node:readline'
import { startOpenAiFake, type ChatBehaviour } from '../test/support/openai-fake'

const behaviour = JSON.parse(process.argv[2] ?? '{"reply":"OK"}') as ChatBehaviour
const fake = await startOpenAiFake()
fake.reply = () => behaviour
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'last') return
  process.stdout.write(`OPENAI-FAKE-LAST ${JSON.stringify(fake.chats().at(-1) ?? null)}\n`)
  fake.requests.length = 0
})
process.stdin.on('end', () => void fake.close().then(() => process.exit(0)))
process.stdout.write(`OPENAI-FAKE-READY ${fake.baseUrl}\n`)
