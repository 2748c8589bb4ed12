/**
 * Leases of instances and fencing tokens (src/main/store/repos/lease-repo.ts, docs/design.md §22): two workers,
 * each with a database handle of its own on the SAME database (one SQLite file opened twice; one
 * PostgreSQL database of the run's real server reached by two pools), claiming, renewing, releasing
 * and taking over instances, and writing an instance's credentials with their lease's token. Times
 * are explicit epoch ms: nothing here waits for a clock.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase, openPostgresDatabase, type DatabaseHandle } from '../../../src/main/store/db/database'
import { StaleLeaseError } from '../../../src/main/store/db/errors'
import { ChannelAuthRepo } from '../../../src/main/store/repos/channel-auth-repo'
import type { Exec } from '../../../src/main/store/repos/exec'
import { checkFence, LeaseRepo } from '../../../src/main/store/repos/lease-repo'
import { BACKENDS, createMigratedTestDatabase, dropTestDatabase, type Backend } from '../../helpers/postgres'
import { tempStorage } from '../../helpers/temp-storage'

const T0 = 1_800_000_000_000
const TTL = 30_000
const AT = '2027-01-15T08:00:00.000Z'

/** What one worker sees: its own handle and the repositories over it. */
interface Worker {
  handle: DatabaseHandle
  leases: LeaseRepo
  auth: ChannelAuthRepo
}

function worker(handle: DatabaseHandle): Worker {
  const x: Exec = { db: handle.db, write: (work) => handle.write(work) }
  return { handle, leases: new LeaseRepo(x), auth: new ChannelAuthRepo(x) }
}

/** Two handles on one database of `backend`, opened one after the other (the first migrates it). */
async function sharedDatabase(backend: Backend): Promise<{ a: DatabaseHandle; b: DatabaseHandle; close(): Promise<void> }> {
  if (backend === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-leases-'))
    const file = join(dir, 'chatapp.db')
    const a = await openDatabase(file)
    const b = await openDatabase(file)
    return {
      a,
      b,
      async close() {
        await a.close()
        await b.close()
        await rm(dir, { recursive: true, force: true })
      }
    }
  }
  const url = await createMigratedTestDatabase()
  const a = await openPostgresDatabase(url)
  const b = await openPostgresDatabase(url)
  return {
    a,
    b,
    async close() {
      await a.close()
      await b.close()
      await dropTestDatabase(url)
    }
  }
}

describe.each(BACKENDS)('on %s', (backend) => {
  let shared: Awaited<ReturnType<typeof sharedDatabase>>
  let w1: Worker
  let w2: Worker
  beforeEach(async () => {
    shared = await sharedDatabase(backend)
    w1 = worker(shared.a)
    w2 = worker(shared.b)
  })
  afterEach(async () => {
    await shared.close()
  })

  it('the two handles are two connections to one database', async () => {
    expect(shared.a.dialect).toBe(backend)
    expect(shared.a.db).not.toBe(shared.b.db)
    await w1.leases.claim('i1', 'w1', T0, TTL)
    expect(await w2.leases.lease('i1')).toMatchObject({ owner: 'w1' })
  })

  it('claim, renewal, expiry and take-over: the token grows with every new grant', async () => {
    expect(await w1.leases.claim('i1', 'w1', T0, TTL)).toEqual({ token: 1 })
    expect(await w2.leases.lease('i1')).toEqual({ instance_id: 'i1', owner: 'w1', fencing_token: 1, expires_at: T0 + TTL, acquired_at: T0 })

    // Held by another worker: refused, nothing changes.
    expect(await w2.leases.claim('i1', 'w2', T0 + 1_000, TTL)).toBeUndefined()
    expect(await w2.leases.lease('i1')).toEqual({ instance_id: 'i1', owner: 'w1', fencing_token: 1, expires_at: T0 + TTL, acquired_at: T0 })

    // The owner claiming again renews: same token, same acquisition, later expiry.
    expect(await w1.leases.claim('i1', 'w1', T0 + 5_000, TTL)).toEqual({ token: 1 })
    expect(await w1.leases.renew('i1', 'w1', 1, T0 + 10_000, TTL)).toBe(true)
    expect(await w1.leases.lease('i1')).toEqual({ instance_id: 'i1', owner: 'w1', fencing_token: 1, expires_at: T0 + 40_000, acquired_at: T0 })
    // A renewal needs owner AND token.
    expect(await w1.leases.renew('i1', 'w1', 2, T0 + 11_000, TTL)).toBe(false)
    expect(await w2.leases.renew('i1', 'w2', 1, T0 + 11_000, TTL)).toBe(false)
    expect(await w2.leases.claim('i1', 'w2', T0 + 39_999, TTL)).toBeUndefined()

    // At expires_at the lease no longer holds: taken over, token incremented.
    expect(await w2.leases.claim('i1', 'w2', T0 + 40_000, TTL)).toEqual({ token: 2 })
    expect(await w1.leases.lease('i1')).toEqual({ instance_id: 'i1', owner: 'w2', fencing_token: 2, expires_at: T0 + 70_000, acquired_at: T0 + 40_000 })
    // The old owner lost it: its renewal and its claim fail.
    expect(await w1.leases.renew('i1', 'w1', 1, T0 + 40_001, TTL)).toBe(false)
    expect(await w1.leases.claim('i1', 'w1', T0 + 40_001, TTL)).toBeUndefined()

    // A lapsed lease is not renewed, even by its owner; claiming it again is a new grant, a new token
    // (a process that paused past its expiry must not write with the old one).
    expect(await w2.leases.renew('i1', 'w2', 2, T0 + 70_000, TTL)).toBe(false)
    expect(await w2.leases.claim('i1', 'w2', T0 + 80_000, TTL)).toEqual({ token: 3 })
    expect(await w1.leases.lease('i1')).toMatchObject({ owner: 'w2', fencing_token: 3, acquired_at: T0 + 80_000 })

    // Orphans: never claimed, or expired.
    expect(await w1.leases.orphans(['i2', 'i1', 'i2', 'i3'], T0 + 80_000)).toEqual(['i2', 'i3'])
    expect(await w1.leases.orphans(['i2', 'i1'], T0 + 80_000 + TTL)).toEqual(['i2', 'i1'])
  })

  it('two workers racing for 50 orphaned instances: each gets exactly one owner, with a consistent token', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `inst-${String(i).padStart(2, '0')}`)
    expect(await w1.leases.orphans(ids, T0)).toEqual(ids)

    /** Both workers claim every id at once (w2 in the opposite order); answers who won each id. */
    async function race(now: number): Promise<Map<string, { owner: string; token: number }>> {
      const [one, two] = await Promise.all([
        Promise.all(ids.map((id) => w1.leases.claim(id, 'w1', now, TTL))),
        Promise.all([...ids].reverse().map((id) => w2.leases.claim(id, 'w2', now, TTL)))
      ])
      const twoById = new Map([...ids].reverse().map((id, i) => [id, two[i]]))
      const won = new Map<string, { owner: string; token: number }>()
      ids.forEach((id, i) => {
        const a = one[i]
        const b = twoById.get(id)
        // Exactly one winner per instance.
        expect([a, b].filter(Boolean)).toHaveLength(1)
        won.set(id, a ? { owner: 'w1', token: a.token } : { owner: 'w2', token: b!.token })
      })
      return won
    }

    const first = await race(T0)
    const stored = await w1.leases.cluster(T0)
    expect(stored.leases).toHaveLength(50)
    for (const lease of stored.leases) {
      expect(first.get(lease.instance_id)).toEqual({ owner: lease.owner, token: 1 })
      expect(lease.expires_at).toBe(T0 + TTL)
    }
    expect(await w2.leases.orphans(ids, T0 + 1)).toEqual([])

    // Every lease expires; both race again for the take-over: one winner each, the token moved to 2.
    const second = await race(T0 + TTL)
    const after = await w2.leases.cluster(T0 + TTL)
    for (const lease of after.leases) {
      expect(second.get(lease.instance_id)).toEqual({ owner: lease.owner, token: 2 })
      expect(lease.acquired_at).toBe(T0 + TTL)
    }
    const counts = after.leases.reduce((n, l) => n.set(l.owner, (n.get(l.owner) ?? 0) + 1), new Map<string, number>())
    expect([...counts.values()].reduce((s, n) => s + n, 0)).toBe(50)
  })

  it("an owner's renewal racing another worker's take-over (their clocks a millisecond apart): exactly one of them wins", async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `r${i}`)
    for (const id of ids) await w1.leases.claim(id, 'w1', T0, TTL)
    // w1 renews on its clock (1 ms before expiry); w2 sees the lease expired on its own.
    const [renewed, claimed] = await Promise.all([
      Promise.all(ids.map((id) => w1.leases.renew(id, 'w1', 1, T0 + TTL - 1, TTL))),
      Promise.all([...ids].reverse().map((id) => w2.leases.claim(id, 'w2', T0 + TTL, TTL)))
    ])
    claimed.reverse()
    for (const [i, id] of ids.entries()) {
      const lease = (await w1.leases.lease(id))!
      if (renewed[i]) {
        expect(claimed[i]).toBeUndefined()
        expect(lease).toMatchObject({ owner: 'w1', fencing_token: 1, expires_at: T0 + 2 * TTL - 1 })
      } else {
        expect(claimed[i]).toEqual({ token: 2 })
        expect(lease).toMatchObject({ owner: 'w2', fencing_token: 2, expires_at: T0 + 2 * TTL })
      }
    }
  })

  it("a stale owner's credential and key writes are refused after a take-over, and the new owner's data stays whole", async () => {
    const f1 = { worker: 'w1', token: (await w1.leases.claim('i1', 'w1', T0, TTL))!.token }
    await w1.auth.saveCreds('i1', '{"me":"w1"}', AT, f1)
    await w1.auth.applyKeys('i1', [{ type: 'pre-key', id: '1', value: '"w1"' }], f1)

    // w1 stalls past its expiry; w2 takes over and writes.
    const f2 = { worker: 'w2', token: (await w2.leases.claim('i1', 'w2', T0 + TTL, TTL))!.token }
    expect(f2.token).toBe(f1.token + 1)
    await w2.auth.saveCreds('i1', '{"me":"w2"}', AT, f2)
    await w2.auth.applyKeys('i1', [{ type: 'session', id: 'a', value: '"w2"' }, { type: 'pre-key', id: '1', value: null }], f2)

    // Every write of w1 with its old token is refused, and writes nothing.
    await expect(w1.auth.saveCreds('i1', '{"me":"stale"}', AT, f1)).rejects.toThrow(StaleLeaseError)
    await expect(w1.auth.applyKeys('i1', [{ type: 'session', id: 'a', value: '"stale"' }], f1)).rejects.toBeInstanceOf(StaleLeaseError)
    await expect(w1.auth.clearKeys('i1', f1)).rejects.toBeInstanceOf(StaleLeaseError)
    const refused = await w1.auth.remove('i1', f1).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(StaleLeaseError)
    expect(refused).toMatchObject({ instanceId: 'i1', worker: 'w1', token: 1 })
    // The right worker with an old token, or a token of another worker: refused too.
    await expect(w2.auth.saveCreds('i1', '{"me":"old"}', AT, { worker: 'w2', token: f1.token })).rejects.toBeInstanceOf(StaleLeaseError)
    await expect(w1.auth.saveCreds('i1', '{"me":"other"}', AT, { worker: 'w1', token: f2.token })).rejects.toBeInstanceOf(StaleLeaseError)
    // No lease at all: nothing to be fenced by.
    await expect(w1.auth.saveCreds('never', '{"me":"x"}', AT, f1)).rejects.toBeInstanceOf(StaleLeaseError)
    expect(await w1.auth.has('never')).toBe(false)

    for (const w of [w1, w2]) {
      expect(await w.auth.creds('i1')).toBe('{"me":"w2"}')
      expect([...(await w.auth.keys('i1', 'session', ['a']))]).toEqual([['a', '"w2"']])
      expect(await w.auth.countKeys('i1')).toBe(1)
    }
    // Without a fence (the desktop app, one process) nothing is checked.
    await w1.auth.saveCreds('i9', '{"me":"desk"}', AT)
    expect(await w2.auth.creds('i9')).toBe('{"me":"desk"}')
  })

  it('a refused fenced write in a group commit leaves the writes batched with it committed', async () => {
    const fa = { worker: 'w1', token: (await w1.leases.claim('ia', 'w1', T0, TTL))!.token }
    const fb = { worker: 'w1', token: (await w1.leases.claim('ib', 'w1', T0, TTL))!.token }
    await w2.leases.claim('ia', 'w2', T0 + TTL, TTL)
    const commits = w1.handle.commitStats().commits
    const [stale, good] = await Promise.allSettled([w1.auth.saveCreds('ia', '{"me":"stale"}', AT, fa), w1.auth.saveCreds('ib', '{"me":"w1"}', AT, fb)])
    expect(w1.handle.commitStats().commits).toBe(commits + 1)
    expect(stale).toMatchObject({ status: 'rejected', reason: expect.any(StaleLeaseError) })
    expect(good).toEqual({ status: 'fulfilled', value: undefined })
    expect(await w2.auth.creds('ia')).toBeUndefined()
    expect(await w2.auth.creds('ib')).toBe('{"me":"w1"}')
  })

  it('a take-over racing a fenced write: the write lands before it, or fails; never after it', async () => {
    const f1 = { worker: 'w1', token: (await w1.leases.claim('i1', 'w1', T0, TTL))!.token }
    // w1's write checks its fence, then (paused) w2 takes the expired lease over.
    const trx = await w1.handle.db.startTransaction().execute()
    await checkFence(trx, 'i1', f1)
    if (backend === 'postgres') {
      // The row is locked FOR UPDATE: the take-over waits for w1's transaction to end.
      let settled = false
      const takeOver = w2.leases.claim('i1', 'w2', T0 + TTL, TTL).finally(() => {
        settled = true
      })
      await waitFor(async () => {
        const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(w2.handle.db)
        return settled || Number(rows[0]!.n) === 1
      })
      if (settled) await trx.rollback().execute()
      expect(settled, 'the take-over went on while the fenced write held the row').toBe(false)
      await trx.insertInto('auth_creds').values({ instance_id: 'i1', creds: '{"me":"w1"}', updated_at: Date.parse(AT) }).execute()
      await trx.commit().execute()
      // Committed while w1 held the lease; then the take-over proceeds with the next token.
      expect(await takeOver).toEqual({ token: 2 })
      expect(await w2.auth.creds('i1')).toBe('{"me":"w1"}')
    } else {
      // WAL: the take-over commits at once (w1 only read), and w1's snapshot is now stale: SQLite
      // refuses its write (SQLITE_BUSY_SNAPSHOT) instead of storing it after the take-over.
      expect(await w2.leases.claim('i1', 'w2', T0 + TTL, TTL)).toEqual({ token: 2 })
      await expect(trx.insertInto('auth_creds').values({ instance_id: 'i1', creds: '{"me":"w1"}', updated_at: Date.parse(AT) }).execute()).rejects.toMatchObject({ code: 'ERR_SQLITE_ERROR', errcode: 517 })
      await trx.rollback().execute()
      expect(await w2.auth.creds('i1')).toBeUndefined()
    }
    // From now on w1's writes are refused.
    await expect(w1.auth.saveCreds('i1', '{"me":"late"}', AT, f1)).rejects.toBeInstanceOf(StaleLeaseError)
  })

  it('release hands every lease of a worker over at once, and the next owner gets the next token', async () => {
    await w1.leases.heartbeat({ id: 'w1', url: 'http://w1', startedAt: T0, maxInstances: null }, T0)
    await w2.leases.heartbeat({ id: 'w2', url: 'http://w2', startedAt: T0, maxInstances: null }, T0)
    await w1.leases.claim('i1', 'w1', T0, TTL)
    await w1.leases.claim('i2', 'w1', T0, TTL)
    await w2.leases.claim('i3', 'w2', T0, TTL)

    const t = T0 + 1_000
    expect(await w1.leases.release('w1', t)).toEqual(['i1', 'i2'])
    expect(await w2.leases.orphans(['i1', 'i2', 'i3'], t)).toEqual(['i1', 'i2'])
    expect((await w2.leases.leastLoaded(t, 10_000)).map((w) => w.id)).toEqual(['w2'])
    // Owner and token kept; the lease expired at t.
    expect(await w2.leases.lease('i1')).toEqual({ instance_id: 'i1', owner: 'w1', fencing_token: 1, expires_at: t, acquired_at: T0 })
    // Taken over at the same instant, long before the TTL would have run out.
    expect(await w2.leases.claim('i1', 'w2', t, TTL)).toEqual({ token: 2 })
    await expect(w1.auth.saveCreds('i1', '{"me":"w1"}', AT, { worker: 'w1', token: 1 })).rejects.toBeInstanceOf(StaleLeaseError)
    expect(await w1.leases.release('w1', t)).toEqual([])
    expect(await w2.leases.lease('i3')).toMatchObject({ owner: 'w2', expires_at: T0 + TTL })
  })

  it("releaseOne gives up one instance's lease at once, only with the holder's fence; the next claim gets the next token", async () => {
    await w1.leases.claim('i1', 'w1', T0, TTL)
    await w1.leases.claim('i2', 'w1', T0, TTL)
    const t = T0 + 1_000
    // Not the holder's fence: refused, nothing changes (another worker, an older token).
    expect(await w2.leases.releaseOne('i1', { worker: 'w2', token: 1 }, t)).toBe(false)
    expect(await w1.leases.releaseOne('i1', { worker: 'w1', token: 2 }, t)).toBe(false)
    expect(await w2.leases.claim('i1', 'w2', t, TTL)).toBeUndefined()
    // The holder's: the lease expires at t (owner and token kept), the other lease stays.
    expect(await w1.leases.releaseOne('i1', { worker: 'w1', token: 1 }, t)).toBe(true)
    expect(await w2.leases.lease('i1')).toEqual({ instance_id: 'i1', owner: 'w1', fencing_token: 1, expires_at: t, acquired_at: T0 })
    expect(await w2.leases.orphans(['i1', 'i2'], t)).toEqual(['i1'])
    // Claimed by the other worker at once, long before the TTL; the old fence no longer writes.
    expect(await w2.leases.claim('i1', 'w2', t, TTL)).toEqual({ token: 2 })
    await expect(w1.auth.saveCreds('i1', '{"me":"w1"}', AT, { worker: 'w1', token: 1 })).rejects.toBeInstanceOf(StaleLeaseError)
    // A stale holder's late release does not free the new owner's lease.
    expect(await w1.leases.releaseOne('i1', { worker: 'w1', token: 1 }, t + 1)).toBe(false)
    expect(await w1.leases.lease('i1')).toMatchObject({ owner: 'w2', fencing_token: 2, expires_at: t + TTL })
    // A lapsed lease is not released again (it is free already).
    expect(await w1.leases.releaseOne('i2', { worker: 'w1', token: 1 }, T0 + TTL)).toBe(false)
  })

  it("forget deletes a deleted instance's lease row: when free, or with the holder's fence; never another worker's live lease", async () => {
    await w1.leases.claim('i1', 'w1', T0, TTL)
    await w2.leases.claim('i2', 'w2', T0, TTL)
    await w1.leases.claim('i3', 'w1', T0, TTL)
    const t = T0 + 1_000
    // Held by w2: neither without a fence nor with w1's does it go.
    expect(await w1.leases.forget('i2', undefined, t)).toBe(false)
    expect(await w1.leases.forget('i2', { worker: 'w1', token: 1 }, t)).toBe(false)
    expect(await w1.leases.lease('i2')).toMatchObject({ owner: 'w2' })
    // The holder's fence: gone.
    expect(await w1.leases.forget('i1', { worker: 'w1', token: 1 }, t)).toBe(true)
    expect(await w2.leases.lease('i1')).toBeUndefined()
    // Released (or lapsed): free, so it goes without a fence.
    expect(await w1.leases.releaseOne('i3', { worker: 'w1', token: 1 }, t)).toBe(true)
    expect(await w2.leases.forget('i3', undefined, t)).toBe(true)
    expect(await w2.leases.lease('i3')).toBeUndefined()
    expect((await w2.leases.cluster(t)).leases.map((l) => l.instance_id)).toEqual(['i2'])
    // Nothing left to forget.
    expect(await w1.leases.forget('i1', { worker: 'w1', token: 1 }, t)).toBe(false)
  })

  it('least loaded: live workers by leases held, those at their maximum left out', async () => {
    const beat = (id: string, maxInstances: number | null, at: number) => w1.leases.heartbeat({ id, url: `http://${id}:3000`, startedAt: T0, maxInstances }, at)
    await beat('w1', 2, T0)
    await beat('w2', null, T0)
    await beat('w3', null, T0 - 60_000) // not seen for a minute: not live
    await beat('w4', 5, T0)
    await w1.leases.claim('a', 'w1', T0, TTL)
    await w1.leases.claim('b', 'w1', T0, TTL)
    await w2.leases.claim('c', 'w2', T0, TTL)
    await w2.leases.claim('d', 'w3', T0, TTL)

    expect(await w1.leases.leastLoaded(T0, 10_000)).toEqual([
      { id: 'w4', url: 'http://w4:3000', maxInstances: 5, instances: 0 },
      { id: 'w2', url: 'http://w2:3000', maxInstances: null, instances: 1 }
    ])
    // One of w1's leases expired (b was never renewed): w1 is under its maximum again. Ties by id.
    await w1.leases.renew('a', 'w1', 1, T0 + 20_000, TTL)
    await beat('w1', 2, T0 + TTL)
    await beat('w2', null, T0 + TTL)
    await beat('w4', 5, T0 + TTL)
    expect(await w2.leases.leastLoaded(T0 + TTL, 10_000)).toEqual([
      { id: 'w2', url: 'http://w2:3000', maxInstances: null, instances: 0 },
      { id: 'w4', url: 'http://w4:3000', maxInstances: 5, instances: 0 },
      { id: 'w1', url: 'http://w1:3000', maxInstances: 2, instances: 1 }
    ])
    // A maximum of 0 takes nothing.
    await beat('w4', 0, T0 + TTL)
    expect((await w2.leases.leastLoaded(T0 + TTL, 10_000)).map((w) => w.id)).toEqual(['w2', 'w1'])
  })

  it('the cluster view: workers with the leases they hold, and every lease', async () => {
    await w1.leases.heartbeat({ id: 'w1', url: 'http://10.0.0.1:3000', startedAt: T0 - 5_000, maxInstances: 10 }, T0)
    await w2.leases.heartbeat({ id: 'w2', url: 'http://10.0.0.2:3000', startedAt: T0 - 1_000, maxInstances: null }, T0 + 500)
    // A second heartbeat updates the row (the url may change; the limit too).
    await w2.leases.heartbeat({ id: 'w2', url: 'http://10.0.0.2:3001', startedAt: T0 - 1_000, maxInstances: 3 }, T0 + 1_000)
    await w1.leases.claim('s1', 'w1', T0, TTL)
    await w2.leases.claim('s2', 'w2', T0, TTL)
    await w2.leases.claim('s3', 'w2', T0 - TTL, TTL) // already expired at T0

    expect(await w1.leases.cluster(T0 + 1_000)).toEqual({
      workers: [
        { id: 'w1', url: 'http://10.0.0.1:3000', started_at: T0 - 5_000, last_seen_at: T0, max_instances: 10, instances: 1 },
        { id: 'w2', url: 'http://10.0.0.2:3001', started_at: T0 - 1_000, last_seen_at: T0 + 1_000, max_instances: 3, instances: 1 }
      ],
      leases: [
        { instance_id: 's1', owner: 'w1', fencing_token: 1, expires_at: T0 + TTL, acquired_at: T0 },
        { instance_id: 's2', owner: 'w2', fencing_token: 1, expires_at: T0 + TTL, acquired_at: T0 },
        { instance_id: 's3', owner: 'w2', fencing_token: 1, expires_at: T0, acquired_at: T0 - TTL }
      ]
    })
  })
})

describe.each(BACKENDS)('the app\'s repositories on %s', (backend) => {
  it('expose the leases, also inside a unit of work, and fence credential writes there too', async () => {
    const t = await tempStorage(backend)
    try {
      const repos = t.storage.repos
      const lease = await repos.leases.claim('i1', 'w1', T0, TTL)
      expect(lease).toEqual({ token: 1 })
      // A unit of work: the renewal and the fenced write commit together.
      await repos.transaction(async (r) => {
        expect(await r.leases.renew('i1', 'w1', 1, T0 + 1_000, TTL)).toBe(true)
        await r.channelAuth.saveCreds('i1', '{"me":1}', AT, { worker: 'w1', token: 1 })
      })
      expect(await repos.leases.lease('i1')).toMatchObject({ expires_at: T0 + 1_000 + TTL })
      await expect(repos.transaction((r) => r.channelAuth.saveCreds('i1', '{"me":2}', AT, { worker: 'w2', token: 1 }))).rejects.toBeInstanceOf(StaleLeaseError)
      expect(await repos.channelAuth.creds('i1')).toBe('{"me":1}')
    } finally {
      await t.close()
    }
  })
})

/** Resolves once `condition` holds, asking again after each turn of the event loop (the test's timeout bounds it). */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((r) => setImmediate(r))
}
