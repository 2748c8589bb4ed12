/**
 * A backup taken while writes go on is one consistent moment of the database: 200 or more units of
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

/** Units acknowledged before the backup starts, so some are surely in its copy. */
const BEFORE = 20

/** Units in flight at most: the writer keeps up, so the backup meets a steady stream, not a backlog. */
const IN_FLIGHT = 32

/**
 * Fires units one per event-loop turn, at most IN_FLIGHT unacknowledged (so they spread over the
 * backup), starts `backup` once BEFORE are acknowledged, and goes on until it has settled and UNITS
 * were written (so some surely come after its copy); resolves with the backup's result when every
 * unit is acknowledged.
 */
async function writeUnitsAround<T>(write: (unit: number) => Promise<unknown>, acked: Array<{ unit: number; at: number }>, backup: () => Promise<T>): Promise<T> {
  let started: Promise<T> | undefined
  let settled = false
  const all: Promise<unknown>[] = []
  for (let u = 0; u < UNITS || !settled; u++) {
    all.push(write(u).then(() => acked.push({ unit: u, at: Date.now() })))
    await new Promise((r) => setImmediate(r))
    while (u + 1 - acked.length >= IN_FLIGHT) await Promise.race(all.slice(acked.length))
    if (!started && acked.length >= BEFORE) {
      started = backup()
      started.then(
        () => (settled = true),
        () => (settled = true)
      )
    }
  }
  await Promise.all(all)
  return started!
}

/** A unit of work: two messages in one transaction (so a copy holds both or neither). */
function unitWriter(storage: Storage): (unit: number) => Promise<unknown> {
  return (u) =>
    storage.repos.transaction(async (r) => {
      await r.messages.append(INSTANCE, { ...message(100_000 + u), id: `UNIT${u}-a` })
      await r.messages.append(INSTANCE, { ...message(200_000 + u), id: `UNIT${u}-b` })
    })
}

describe('a backup during writes', () => {
  it('through the app\'s own connection: consistent, and every unit acknowledged before its moment is in', async () => {
    const storage = await openStorage(join(work, 'app'))
    try {
      await pad(storage)
      const acked: Array<{ unit: number; at: number }> = []
      const write = unitWriter(storage)
      const archive = join(work, 'during.tar.gz')
      const started = Date.now()
      const manifest = await writeUnitsAround(write, acked, () => createBackup(storageSource(storage), archive))
      expect(acked.length).toBeGreaterThanOrEqual(UNITS)
      const { moment, present } = await checkBackup(archive, acked)
      // The backup ran amid the writes: units acknowledged before it are in, later ones are not.
      expect(present).toBeGreaterThanOrEqual(BEFORE)
      expect(present).toBeLessThan(acked.length)
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
      const write = unitWriter(storage)
      const source = await openDataDirSource(join(work, 'outside'))
      const archive = join(work, 'outside.tar.gz')
      try {
        await writeUnitsAround(write, acked, () => createBackup(source, archive))
      } finally {
        await source.close()
      }
      // Its copy is one read transaction, taken as it began: the units committed by then, none half,
      // and not the ones the app went on writing.
      const { present } = await checkBackup(archive, acked)
      expect(present).toBeLessThan(acked.length)
    } finally {
      await storage.close()
    }
  })
})
