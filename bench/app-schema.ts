/**
 * A fresh SQLite file with the app's schema, made by its own migrations, and one plain `node:sqlite`
 * connection to it with the app's settings (WAL, synchronous=FULL, foreign keys): for the benches
 * that measure SQLite's own work under the app's schema, without the app around it.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
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
