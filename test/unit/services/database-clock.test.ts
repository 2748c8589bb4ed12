/**
 * The lease clock kept in step with the database server's (src/main/services/cluster/database-clock.ts;
 * LeaseRepo.databaseNow): on the run's real PostgreSQL, a worker whose own clock is 2 hours off reads
 * lease time within a second of the database's; SQLite has no other clock. Then the rules of a
 * sample: a slow one is dropped, a failed one keeps the last offset.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DatabaseAlignedClock } from '../../../src/main/services/cluster/database-clock'
import { openDatabase, openPostgresDatabase } from '../../../src/main/store/db/database'
import { LeaseRepo } from '../../../src/main/store/repos/lease-repo'
import { createTestDatabase, dropTestDatabase } from '../../helpers/postgres'

const HOUR = 3_600_000

describe('on the database', () => {
  it("PostgreSQL: a clock 2 hours ahead, once synced, reads the server's time (within a second)", async () => {
    const url = await createTestDatabase()
    const handle = await openPostgresDatabase(url)
    try {
      const leases = new LeaseRepo({ db: handle.db, write: (work) => handle.write(work) })
      const server = await leases.databaseNow()
      // The run's server is on this machine: its clock is this one's.
      expect(Math.abs(server! - Date.now())).toBeLessThan(1000)
      const clock = new DatabaseAlignedClock({ now: () => Date.now() + 2 * HOUR }, () => leases.databaseNow())
      expect(clock.now() - Date.now()).toBeGreaterThan(HOUR)
      const offset = await clock.sync()
      expect(Math.abs(offset + 2 * HOUR)).toBeLessThan(1000)
      expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1000)
      expect(Number.isInteger(clock.now())).toBe(true)
    } finally {
      await handle.close()
      await dropTestDatabase(url)
    }
  })

  it('SQLite: no other clock; the local one is kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-clock-'))
    const handle = await openDatabase(join(dir, 'chatapp.db'))
    try {
      const leases = new LeaseRepo({ db: handle.db, write: (work) => handle.write(work) })
      expect(await leases.databaseNow()).toBeNull()
      const clock = new DatabaseAlignedClock({ now: () => 1000 }, () => leases.databaseNow())
      expect(await clock.sync()).toBe(0)
      expect(clock.now()).toBe(1000)
    } finally {
      await handle.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('samples', () => {
  it("the offset is the server's time minus the midpoint of the round trip", async () => {
    let t = 10_000
    const clock = new DatabaseAlignedClock({ now: () => t }, async () => {
      t += 40 // the query takes 40 ms; the server answered at its 50_000, halfway
      return 50_000
    })
    expect(await clock.sync()).toBe(50_000 - 10_020)
    expect(clock.now()).toBe(t + 39_980)
  })

  it('a sample slower than the bound is dropped, and a failed one keeps the last offset', async () => {
    let t = 0
    let answer: () => Promise<number> = async () => 5_000
    const clock = new DatabaseAlignedClock({ now: () => t }, () => answer(), 200)
    expect(await clock.sync()).toBe(5_000)
    answer = async () => {
      t += 1_000
      return 90_000
    }
    expect(await clock.sync()).toBe(5_000)
    answer = () => Promise.reject(new Error('connection terminated'))
    expect(await clock.sync()).toBe(5_000)
  })
})
