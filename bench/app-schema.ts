/**
 * A fresh SQLite file with the app's schema, made by its own migrations, and one plain `node:sqlite`
 * connection to it with the app's settings (WAL, synchronous=FULL, foreign keys): for the benches
 * that measure SQLite's own work under the app's schema, without the app around it.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { openDatabase } from '../src/main/store/db/database'

/** The connection and its file's folder (the caller removes it). */
export async function appSchemaConnection(prefix: string): Promise<{ db: DatabaseSync; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const file = join(dir, 'chatapp.db')
  await (await openDatabase(file)).close()
  const db = new DatabaseSync(file)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON')
  return { db, dir }
}

/** A send's writes on {@link appSchemaConnection}'s database, as the app's writer makes them. */
export interface SendWrites {
  /** The message (instance `i`) and its conversation's read and insert or update; answers its seq. */
  send(id: string, chatId: string, text: string): number
  /** The delivery status of the messages `ids` (a channel's acknowledgement), one read and one update. */
  acknowledge(ids: readonly string[], status: string): void
}

/**
 * The statements of one send under the storage contract (docs/design.md §14, §20; the app's
 * store/repos/message-repo.ts `append` and `recordStatuses`), prepared once on `db`: the caller
 * makes the transactions. Shared by the throughput bench's floor and the search-index bench.
 */
export function sendWrites(db: DatabaseSync): SendWrites {
  const insert = db.prepare(
    "INSERT INTO messages (instance_id, id, chat_id, from_me, push_name, type, text, timestamp, status, source, details) VALUES ('i', ?, ?, 1, NULL, 'text', ?, ?, 'PENDING', 'api', '{\"sent_by\":\"api\"}') ON CONFLICT (instance_id, id) DO NOTHING RETURNING seq"
  )
  const conversation = db.prepare("SELECT message_count FROM conversations WHERE instance_id = 'i' AND chat_id = ?")
  const newConversation = db.prepare("INSERT INTO conversations (instance_id, chat_id, last_seq, last_at, message_count) VALUES ('i', ?, ?, ?, 1)")
  const noteMessage = db.prepare("UPDATE conversations SET last_seq = ?, last_at = ?, last_person_at = ?, unread = 0, message_count = ? WHERE instance_id = 'i' AND chat_id = ?")
  const inList = (n: number) => Array.from({ length: n }, () => '?').join(', ')
  const statusRead = new Map<number, StatementSync>()
  const statusWrite = new Map<number, StatementSync>()
  return {
    send(id, chatId, text) {
      const now = Date.now()
      const seq = Number((insert.get(id, chatId, text, now) as { seq: number }).seq)
      const c = conversation.get(chatId) as { message_count: number } | undefined
      if (c) noteMessage.run(seq, now, now, c.message_count + 1, chatId)
      else newConversation.run(chatId, seq, now)
      return seq
    },
    acknowledge(ids, status) {
      if (ids.length === 0) return
      const read = statusRead.get(ids.length) ?? statusRead.set(ids.length, db.prepare(`SELECT seq FROM messages WHERE instance_id = 'i' AND id IN (${inList(ids.length)})`)).get(ids.length)!
      const seqs = read.all(...ids).map((r) => Number(r.seq))
      if (seqs.length === 0) return
      const write = statusWrite.get(seqs.length) ?? statusWrite.set(seqs.length, db.prepare(`UPDATE messages SET status = ? WHERE seq IN (${inList(seqs.length)})`)).get(seqs.length)!
      write.run(status, ...seqs)
    }
  }
}
