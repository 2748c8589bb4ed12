/**
 * Writes a data dir of release 0.1 of a chosen size, directly in 0.1's file formats (the format
 * definitions: commit 9aeed71, src/main/store/journaled-document.ts, message-log.ts,
 * webhooks/outbox.ts): `chatapp.json` + a `chatapp.journal` line, `runtime.json` with the desk's read
 * marks, `messages/<instance>.jsonl` with entries and `$patch` status lines, `webhook-outbox.jsonl`.
 * For the import benchmark (./legacy-import-bench.ts); deterministic for a given size.
 *
 * The log reads like a desk's: customers write in many chats, the bot answers each message, and each
 * answer's status moves to SERVER_ACK and DELIVERY_ACK (two patch lines).
 */
import { createWriteStream } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import { join } from 'node:path'
import type { Instance, LoggedMessage } from '../src/shared/schemas/records'
import type { WebhookDelivery } from '../src/shared/schemas/webhooks'

export interface LegacyDirSize {
  /** Messages in all (split over the instances). */
  messages: number
  instances: number
  /** Chats per instance. */
  chats: number
  /** Pending webhook deliveries. */
  deliveries: number
}

const hex = (n: number, width = 24): string => n.toString(16).padStart(width, '0')
const T0 = Date.UTC(2026, 0, 1)

function instance(i: number, accountId: string): Instance {
  return {
    _id: hex(0x1000 + i),
    user_id: accountId,
    session_id: `session-${i}-abcdefghijklmnop`,
    settings: {
      bot_number: `1555000${String(i).padStart(4, '0')}`,
      bot_name: `Shop ${i}`,
      status: 'DISCONNECTED',
      bot_timezone: 'UTC',
      bot_lang: 'en',
      default_msg: 'Hello [name]',
      actions: { send_default_msg: true, reply_group_msgs: false, reply_unread_msgs: true, reply_msgs: true, multi_device: false, send_webhook: true },
      active_days: { monday: true, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: true, sunday: true },
      active_hours: { from: 'always', to: 'always' },
      access_token: `token-${i}-0123456789abcdef0123`,
      channel: 'sandbox',
      webhook: { url: 'http://127.0.0.1:9/hook', events: ['onMessage'], requestConfig: {}, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      user: null
    },
    createdAt: new Date(T0).toISOString(),
    updatedAt: new Date(T0).toISOString(),
    __v: 0
  }
}

/** Writes the data dir into `dir` (made if missing). Answers the message-log bytes written. */
export async function writeLegacyDataDir(dir: string, size: LegacyDirSize): Promise<{ logBytes: number }> {
  await mkdir(join(dir, 'messages'), { recursive: true })
  await mkdir(join(dir, 'sessions'), { recursive: true })
  const account = { _id: hex(1), api_token: 'bench-api-token-0123456789abcdefghij', createdAt: new Date(T0).toISOString() }
  const instances = Array.from({ length: size.instances }, (_, i) => instance(i, account._id))
  const config = { version: 1, account, instances: instances.slice(0, -1), intents: [], surveys: [], attachments: [], appSettings: { smtp: null }, quickReplies: [], contacts: [], contactGroups: [], schedules: [], labels: [], $seq: 1 }
  await writeFile(join(dir, 'chatapp.json'), JSON.stringify(config))
  // The last instance only in the journal, as after a create not yet folded.
  await writeFile(join(dir, 'chatapp.journal'), JSON.stringify({ seq: 2, ops: [{ op: 'put', path: 'instances', value: instances.at(-1) }] }) + '\n')

  const chatStates: unknown[] = []
  let logBytes = 0
  const perInstance = Math.ceil(size.messages / size.instances)
  for (const [k, inst] of instances.entries()) {
    const count = Math.min(perInstance, size.messages - k * perInstance)
    const out = createWriteStream(join(dir, 'messages', `${inst._id}.jsonl`))
    const write = async (line: unknown): Promise<void> => {
      const text = JSON.stringify(line) + '\n'
      logBytes += Buffer.byteLength(text)
      if (!out.write(text)) await once(out, 'drain')
    }
    for (let n = 0; n < count; n++) {
      const chat = n % size.chats
      const chatId = `39333${String(chat).padStart(7, '0')}@s.whatsapp.net`
      const at = T0 + n * 1000
      const id = `3EB0${hex(k * 1e7 + n, 16).toUpperCase()}`
      if (n % 2 === 0) {
        const entry: LoggedMessage = { id, chatId, fromMe: false, pushName: `Customer ${chat}`, type: 'text', text: `Hello, do you have item ${n}? Grazie, è già pronto?`, timestamp: at, status: 'RECEIVED', source: 'inbound', senderId: chatId, senderPn: chatId, bot: { action: 'intent', ref: 'Items' } }
        await write(entry)
      } else {
        const entry: LoggedMessage = { id, chatId, fromMe: true, pushName: null, type: 'text', text: `Yes, item ${n - 1} is in stock.`, timestamp: at, status: 'PENDING', source: 'bot' }
        await write(entry)
        await write({ $patch: id, status: 'SERVER_ACK' })
        await write({ $patch: id, status: 'DELIVERY_ACK' })
      }
    }
    out.end()
    await once(out, 'finish')
    // Every other chat read up to the middle of the log.
    for (let chat = 0; chat < size.chats; chat += 2) {
      const chatId = `39333${String(chat).padStart(7, '0')}@s.whatsapp.net`
      chatStates.push({ _id: `${inst._id}:${chatId}`, instance_id: inst._id, chatId, read_until: T0 + Math.floor(count / 2) * 1000, resolved_at: null })
    }
  }
  const runtime = { version: 1, surveyRuns: [], botActivity: [], bot: {}, chatPauses: [], chatStates, broadcasts: [], outreachSends: [], $seq: 0 }
  await writeFile(join(dir, 'runtime.json'), JSON.stringify(runtime))

  const outbox: string[] = []
  for (let d = 0; d < size.deliveries; d++) {
    const inst = instances[d % instances.length]!
    const delivery: WebhookDelivery = {
      id: `msg_${hex(d, 20)}`,
      instance_id: inst._id,
      event: 'onMessage',
      url: 'http://127.0.0.1:9/hook',
      payload: { event: 'onMessage', instance_id: inst._id, session_id: inst.session_id, data: { id: `m${d}`, text: `message ${d}` }, timestamp: new Date(T0 + d).toISOString() },
      status: 'pending',
      attempts: 0,
      last_error: null,
      last_status: null,
      next_attempt_at: new Date(T0 + d).toISOString(),
      created_at: new Date(T0 + d).toISOString(),
      delivered_at: null
    }
    outbox.push(JSON.stringify({ put: delivery }))
    outbox.push(JSON.stringify({ set: delivery.id, fields: { attempts: 1, last_error: 'ECONNREFUSED' } }))
  }
  await writeFile(join(dir, 'webhook-outbox.jsonl'), outbox.join('\n') + (outbox.length > 0 ? '\n' : ''))
  return { logBytes }
}
