/**
 * Seeds a data dir with a long history for bench/history-bench.ts: `instances` sandbox
 * instances made by the app, then `messages` messages over `chats` chats (one of them holding
 * `bigChat` messages, the rest spread evenly), and `contacts` contacts, written straight into the
 * app's own database (its schema and migrations, its search index triggers) in large transactions:
 * the seeding is the setup, not what is measured, and going through the API would take an hour at 1M.
 * Conversations are derived the way the app keeps them (last message, counts, unread).
 *
 * The text: short order-like sentences from a fixed vocabulary; the word `pizza` in 20 % of the
 * messages (the common word) and `zanzibar` in exactly 10 (the rare one), spread over the history;
 * optionally a word of the last instance only (`lastInstanceWord`).
 */
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { startCore } from '../src/main/core'

export interface SeedShape {
  instances: number
  chats: number
  messages: number
  /** Messages of the largest chat (part of `messages`). */
  bigChat: number
  contacts: number
  /**
   * A word only the last instance's messages have (in every 10th of them), for a search of one
   * instance that must find nothing (bench/search-bench.ts). Draws no random numbers, so the rest of
   * the data is the same with it or without.
   */
  lastInstanceWord?: string
}

export interface Seeded {
  /** Per instance: id, session id, access token. */
  instances: Array<{ id: string; sessionId: string; accessToken: string }>
  /** The big chat: its instance, its id, and the id of a message 90 % of the way back. */
  bigChat: { instanceId: string; chatId: string; deepMessageId: string }
  /** A chat with an ordinary history, of instance 0. */
  smallChat: { instanceId: string; chatId: string }
  token: string
}

const WORDS = ['order', 'please', 'delivery', 'tomorrow', 'thanks', 'price', 'table', 'reserve', 'menu', 'open', 'today', 'calabresa', 'olá', 'obrigado', 'bebida', 'sobremesa', 'combo', 'grande', 'pequena', 'entrega']

/** A deterministic pseudo-random source (mulberry32), so two seeds of one shape are the same data. */
function rng(seed: number): () => number {
  let a = seed
  return () => {
    a |= 0
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Seeds `dataDir` (new or empty) with `shape`; answers what the measurements need. */
export async function seedHistory(dataDir: string, shape: SeedShape, token: string): Promise<Seeded> {
  const core = await startCore({ dataDir, defaultChannel: 'sandbox', apiToken: token, restoreSessions: false })
  const instances: Seeded['instances'] = []
  for (let i = 0; i < shape.instances; i++) {
    const inst = await core.instances.create('sandbox', `Shop ${i + 1}`)
    instances.push({ id: inst._id, sessionId: inst.session_id, accessToken: inst.settings.access_token })
  }
  await core.close()

  const db = new DatabaseSync(join(dataDir, 'chatapp.db'))
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL')
  const random = rng(42)
  const insertMessage = db.prepare(
    'INSERT INTO messages (instance_id, id, chat_id, from_me, push_name, type, text, timestamp, status, error_code, source, sender_id, sender_pn, sender_lid, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, NULL, NULL)'
  )
  const insertConversation = db.prepare(
    'INSERT INTO conversations (instance_id, chat_id, name, phone, last_seq, last_at, last_customer_at, last_person_at, unread, read_until, resolved_at, message_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?)'
  )
  const rareEvery = Math.floor(shape.messages / 10)
  const start = Date.UTC(2024, 0, 1)
  const span = 2 * 365 * 86_400_000
  const others = shape.chats - 1
  const perChat = Math.max(1, Math.floor((shape.messages - shape.bigChat) / Math.max(1, others)))
  let written = 0
  let bigDeepId = ''
  db.exec('BEGIN')
  for (let c = 0; c < shape.chats; c++) {
    const inst = instances[c % instances.length]!
    const number = `1555${String(1_000_000 + c).padStart(7, '0')}`
    const chatId = `${number}@s.whatsapp.net`
    const count = c === 0 ? shape.bigChat : c === shape.chats - 1 ? shape.messages - shape.bigChat - perChat * (others - 1) : perChat
    const name = `Customer ${c}`
    let lastSeq = 0
    let lastAt = 0
    let lastCustomer = 0
    let lastPerson = 0
    for (let m = 0; m < count; m++) {
      const n = written++
      const at = start + Math.floor((span * m) / Math.max(1, count)) + (c % 1000)
      const fromMe = m % 2 === 1
      const words = Array.from({ length: 4 + Math.floor(random() * 6) }, () => WORDS[Math.floor(random() * WORDS.length)]!)
      if (random() < 0.2) words.splice(1, 0, 'pizza')
      if (n % rareEvery === rareEvery - 1) words.push('zanzibar')
      if (shape.lastInstanceWord !== undefined && c % instances.length === instances.length - 1 && m % 10 === 0) words.push(shape.lastInstanceWord)
      const source = fromMe ? (m % 6 === 1 ? 'desk' : 'bot') : 'inbound'
      const res = insertMessage.run(inst.id, `SEED${n.toString(16).toUpperCase().padStart(10, '0')}`, chatId, fromMe ? 1 : 0, fromMe ? null : name, 'text', words.join(' '), at, fromMe ? 'READ' : 'RECEIVED', source, fromMe ? null : chatId, fromMe ? null : chatId)
      lastSeq = Number(res.lastInsertRowid)
      lastAt = at
      if (!fromMe) lastCustomer = at
      if (source === 'desk') lastPerson = at
      if (c === 0 && m === Math.floor(count * 0.1)) bigDeepId = `SEED${n.toString(16).toUpperCase().padStart(10, '0')}`
      if (written % 50_000 === 0) {
        db.exec('COMMIT')
        db.exec('BEGIN')
      }
    }
    if (count > 0) insertConversation.run(inst.id, chatId, name, number, lastSeq, lastAt, lastCustomer, lastPerson, lastCustomer > lastPerson ? 1 : 0, count)
  }
  db.exec('COMMIT')
  const insertContact = db.prepare(
    "INSERT INTO contacts (id, instance_id, client_id, name, number, group_id, channel, notes, opted_out, last_seen_at, created_at, updated_at, v) VALUES (?, ?, 'seed', ?, ?, NULL, 'whatsapp', '', 0, NULL, ?, ?, 0)"
  )
  db.exec('BEGIN')
  for (let k = 0; k < shape.contacts; k++) {
    const inst = instances[k % instances.length]!
    const iso = new Date(start + k * 1000).toISOString()
    insertContact.run(`c${k.toString(16).padStart(23, '0')}`, inst.id, `Contact ${k} ${WORDS[k % WORDS.length]}`, `1777${String(k).padStart(7, '0')}`, iso, iso)
  }
  db.exec('COMMIT')
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  const first = instances[0]!
  return {
    instances,
    bigChat: { instanceId: first.id, chatId: '15551000000@s.whatsapp.net', deepMessageId: bigDeepId },
    smallChat: { instanceId: instances[1 % instances.length]!.id, chatId: '15551000001@s.whatsapp.net' },
    token
  }
}
