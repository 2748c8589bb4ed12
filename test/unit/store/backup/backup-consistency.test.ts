/**
 * A backup taken while writes go on is one consistent moment of the database: 200 concurrent units of
 * work (two messages each) run across the backup; the archive's database opens, passes SQLite's
 * integrity_check, holds every unit acknowledged before the manifest's moment, and holds each unit
 * whole or not at all, in commit order (no gaps).
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { createBackup, storageSource } from '../../../../src/main/store/backup'
import { openDataDirSource } from '../../../../src/main/store/backup/source'
import { extractBackup } from '../../../../src/main/store/backup/verify'
import { openDatabase } from '../../../../src/main/store/db/database'
import { openStorage, type Storage } from '../../../../src/main/store/storage'
import { INSTANCE, message, tempDir } from './helpers'

const work = tempDir()
afterAll(() => rm(work, { recursive: true, force: true }))

const UNITS = 200
/** Enough pages (~20 MB) that the online backup takes many steps, so the writes land between them. */
const PADDING_ROWS = 20_000

/** Fills the database with Signal keys (a table without triggers: quick to write). */
async function pad(storage: Storage): Promise<void> {
  const value = 'k'.repeat(1000)
  await storage.database.write(async (trx) => {
    for (let i = 0; i < PADDING_ROWS; i += 500) {
      await trx
        .insertInto('auth_keys')
        .values(Array.from({ length: 500 }, (_, j) => ({ instance_id: INSTANCE, type: 'pre-key', id: String(i + j), value })))
        .execute()
    }
  })
}

async function checkBackup(archive: string, acked: Array<{ unit: number; at: number }>): Promise<{ present: number; moment: number }> {
  const extracted = await extractBackup(archive, { tmpDir: join(work, 'tmp') })
  try {
    const db = await openDatabase(join(extracted.files, 'chatapp.db'))
    try {
      const check = await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(db.db)
      expect(check.rows).toEqual([{ integrity_check: 'ok' }])
      const ids = new Set((await db.db.selectFrom('messages').select('id').where('id', 'like', 'UNIT%').execute()).map((r) => r.id))
      const units = acked.map((a) => a.unit)
      const present = units.filter((u) => ids.has(`UNIT${u}-a`))
      // Whole or not at all.
      for (const u of units) expect(ids.has(`UNIT${u}-a`)).toBe(ids.has(`UNIT${u}-b`))
      // A prefix of the commit order: no unit missing before a present one.
      expect(present).toEqual(units.slice(0, present.length))
      expect(ids.size).toBe(present.length * 2)
      expect(await db.db.selectFrom('auth_keys').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: PADDING_ROWS })
      const { manifest } = extracted
      const moment = Date.parse(manifest.created_at)
      const ackedBefore = acked.filter((a) => a.at < moment).length
      expect(present.length).toBeGreaterThanOrEqual(ackedBefore)
      return { present: present.length, moment }
    } finally {
      await db.close()
    }
  } finally {
    await extracted.dispose()
  }
}

/** Fires the units one per event-loop turn (so they spread over the backup), resolving when all are acknowledged. */
async function writeUnits(write: (unit: number) => Promise<unknown>, acked: Array<{ unit: number; at: number }>): Promise<void> {
  const all: Promise<unknown>[] = []
  for (let u = 0; u < UNITS; u++) {
    all.push(write(u).then(() => acked.push({ unit: u, at: Date.now() })))
    await new Promise((r) => setImmediate(r))
  }
  await Promise.all(all)
}

describe('a backup during writes', () => {
  it('through the app\'s own connection: consistent, and every unit acknowledged before its moment is in', async () => {
    const storage = await openStorage(join(work, 'app'))
    try {
      await pad(storage)
      const acked: Array<{ unit: number; at: number }> = []
      const write = (u: number) =>
        storage.repos.transaction(async (r) => {
          await r.messages.append(INSTANCE, { ...message(100_000 + u), id: `UNIT${u}-a` })
          await r.messages.append(INSTANCE, { ...message(200_000 + u), id: `UNIT${u}-b` })
        })
      const archive = join(work, 'during.tar.gz')
      const started = Date.now()
      const [manifest] = await Promise.all([createBackup(storageSource(storage), archive), writeUnits(write, acked)])
      expect(acked).toHaveLength(UNITS)
      const { moment, present } = await checkBackup(archive, acked)
      // The backup really ran amid the writes: units were committed after its moment and still got in
      // (the online backup carries the writes of its own connection), and it ended before the last ones.
      expect(present).toBeGreaterThan(acked.filter((a) => a.at < moment).length)
      expect(moment).toBeGreaterThanOrEqual(started)
      expect(manifest.files[1]!.path).toBe('chatapp.db')
    } finally {
      await storage.close()
    }
  })

  it('from outside the app (npm run backup\'s read-only source) while the app writes', async () => {
    const storage = await openStorage(join(work, 'outside'))
    try {
      await pad(storage)
      const acked: Array<{ unit: number; at: number }> = []
      const write = (u: number) =>
        storage.repos.transaction(async (r) => {
          await r.messages.append(INSTANCE, { ...message(100_000 + u), id: `UNIT${u}-a` })
          await r.messages.append(INSTANCE, { ...message(200_000 + u), id: `UNIT${u}-b` })
        })
      const source = await openDataDirSource(join(work, 'outside'))
      const archive = join(work, 'outside.tar.gz')
      try {
        await Promise.all([createBackup(source, archive), writeUnits(write, acked)])
      } finally {
        await source.close()
      }
      // Its copy is one read transaction, taken as it began: the units committed by then, none half,
      // and not the ones the app went on writing.
      const { present } = await checkBackup(archive, acked)
      expect(present).toBeLessThan(UNITS)
    } finally {
      await storage.close()
    }
  })
})
