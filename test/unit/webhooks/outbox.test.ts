/**
 * The webhook outbox on the `webhook_deliveries` table (docs/design.md §11), on a real SQLite file:
 * an add is committed before the dispatcher sees it (read back through a second connection) and all
 * or nothing (a full disk stores none of it); outcomes (those of one moment in one write), manual
 * retries and deletes; the bounds —
 * delivered rows beyond keepDelivered and failed ones beyond maxFailed forgotten, pending ones never —
 * so the table stays bounded; a reopen resumes every pending delivery; a failed outcome write puts the
 * working set back.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../../../src/main/store/db/database'
import { StorageFullError } from '../../../src/main/store/db/errors'
import { WebhookDeliveryRepo, type DeliveryBounds, type DeliveryOutcome } from '../../../src/main/store/repos/webhook-delivery-repo'
import { WebhookOutbox } from '../../../src/main/webhooks/outbox'
import type { WebhookDelivery } from '../../../src/shared/schemas/webhooks'

let dir: string
let file: string
const open: DatabaseHandle[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-outbox-'))
  file = join(dir, 'chatapp.db')
})
afterEach(async () => {
  for (const d of open.splice(0)) await d.close()
  await rm(dir, { recursive: true, force: true })
})

/** The database file, its delivery repository and the outbox over it. */
async function start(bounds: Partial<DeliveryBounds> = {}) {
  const database = await openDatabase(file)
  open.push(database)
  const repo = new WebhookDeliveryRepo({ db: database.db, write: (work) => database.write(work) }, bounds)
  const box = await WebhookOutbox.open(repo)
  return {
    database,
    repo,
    box,
    async close() {
      open.splice(open.indexOf(database), 1)
      await database.close()
    }
  }
}

/** Ids of the committed rows, read through a connection of its own (what a crash would leave). */
function committedIds(): string[] {
  const other = new DatabaseSync(file, { readOnly: true })
  try {
    return (other.prepare('SELECT id FROM webhook_deliveries ORDER BY seq').all() as Array<{ id: string }>).map((r) => r.id)
  } finally {
    other.close()
  }
}

/** Ids of the pending deliveries the dispatcher may send, every endpoint's queue in order. */
function pendingIds(box: WebhookOutbox): string[] {
  return [...box.pendingByEndpoint().values()].flatMap((q) => [...q.keys()])
}

let seq = 0
function delivery(instance_id: string, patch: Partial<WebhookDelivery> = {}): WebhookDelivery {
  const n = ++seq
  return {
    id: `msg_${String(n).padStart(24, '0')}`,
    instance_id,
    event: 'onMessage',
    url: 'http://127.0.0.1:9/hook',
    payload: { event: 'onMessage', instance_id, session_id: 's', data: { n, text: 'héllo 👋' }, timestamp: new Date(0).toISOString() },
    status: 'pending',
    attempts: 0,
    last_error: null,
    last_status: null,
    next_attempt_at: null,
    created_at: new Date(n).toISOString(),
    delivered_at: null,
    ...patch
  }
}

const delivered = (attempts = 1): DeliveryOutcome => ({ status: 'delivered', attempts, last_error: null, last_status: 200, next_attempt_at: null, delivered_at: new Date(0).toISOString() })
const failed = (attempts = 1, last_error = 'HTTP 400 Bad Request'): DeliveryOutcome => ({ status: 'failed', attempts, last_error, last_status: 400, next_attempt_at: null })

it('an add is committed when it resolves, read back whole, and resumed after a reopen', async () => {
  const a = await start()
  const d = delivery('A', { next_attempt_at: new Date(5).toISOString() })
  await a.box.add([d])
  expect(committedIds()).toEqual([d.id])
  expect(await a.repo.find(d.id)).toEqual(d)
  await a.close()
  const b = await start()
  expect(pendingIds(b.box)).toEqual([d.id])
  expect(b.box.pending(d.id)).toEqual(d)
})

it('a delivery joins the working set only once its row is committed', async () => {
  const { box } = await start()
  const d = delivery('A')
  const adding = box.add([d])
  expect(pendingIds(box)).toEqual([])
  await adding
  expect(pendingIds(box)).toEqual([d.id])
})

it('a full disk refuses the whole add: nothing stored, nothing to send; the next add works', async () => {
  const { database, box, repo } = await start()
  await database.limitGrowth(0)
  // A small add still fits the pages the file has, so the batch below would be half-stored without its transaction.
  const small = delivery('A')
  await box.add([small])
  const big = Array.from({ length: 50 }, () => delivery('A', { payload: { ...delivery('A').payload, data: { blob: 'x'.repeat(2000) } } }))
  await expect(box.add(big)).rejects.toBeInstanceOf(StorageFullError)
  expect(committedIds()).toEqual([small.id])
  expect(pendingIds(box)).toEqual([small.id])
  expect(await repo.list('A', { limit: 500 })).toHaveLength(1)
  await database.limitGrowth(null)
  await box.add(big)
  expect(committedIds()).toHaveLength(51)
  expect(pendingIds(box)).toHaveLength(51)
})

it('stores the adds of one moment in one write; a full disk refuses them all', async () => {
  const { database, box, repo } = await start()
  const writes = vi.spyOn(repo, 'add')
  const events = Array.from({ length: 16 }, () => [delivery('A'), delivery('A')])
  await Promise.all(events.map((e) => box.add(e)))
  expect(writes).toHaveBeenCalledTimes(1)
  // Data only (it crosses to the database's writer thread and runs there whole), all 32 together.
  const [sent] = writes.mock.calls[0]!
  expect(structuredClone(sent)).toEqual(events.flat())
  expect(committedIds()).toEqual(events.flat().map((d) => d.id))
  expect(pendingIds(box)).toEqual(events.flat().map((d) => d.id))

  await database.limitGrowth(0)
  const big = () => delivery('A', { payload: { ...delivery('A').payload, data: { blob: 'x'.repeat(4000) } } })
  const refused = Array.from({ length: 16 }, () => [big()])
  const results = await Promise.allSettled(refused.map((e) => box.add(e)))
  expect(results.every((r) => r.status === 'rejected' && r.reason instanceof StorageFullError)).toBe(true)
  expect(writes).toHaveBeenCalledTimes(2)
  expect(committedIds()).toHaveLength(32)
  expect(pendingIds(box)).toHaveLength(32)
})

it('an id stored already refuses the whole add', async () => {
  const { box } = await start()
  const d = delivery('A')
  await box.add([d])
  const fresh = delivery('A')
  await expect(box.add([fresh, d])).rejects.toThrow(/UNIQUE/)
  expect(committedIds()).toEqual([d.id])
  expect(pendingIds(box)).toEqual([d.id])
})

it('lists one instance newest first, by status and limit', async () => {
  const { box, repo } = await start()
  const rows = [delivery('A'), delivery('B'), delivery('A', { status: 'failed' }), delivery('A')]
  await box.add(rows)
  expect((await repo.list('A')).map((x) => x.id)).toEqual([rows[3]!.id, rows[2]!.id, rows[0]!.id])
  expect((await repo.list('A', { status: 'failed' })).map((x) => x.id)).toEqual([rows[2]!.id])
  expect((await repo.list('A', { limit: 1 })).map((x) => x.id)).toEqual([rows[3]!.id])
  expect((await repo.instanceIds()).sort()).toEqual(['A', 'B'])
  // A finished delivery is not in the working set.
  expect(pendingIds(box)).toEqual([rows[0]!.id, rows[1]!.id, rows[3]!.id])
})

it('records outcomes: a finished delivery leaves the working set, a retry stays with its new time; a gone one answers undefined', async () => {
  const { box, repo } = await start()
  const [a, b, c] = [delivery('A'), delivery('A'), delivery('A')]
  await box.add([a, b, c])
  const written = box.record(a.id, delivered())
  // In the working set at once; in the table once written.
  expect(pendingIds(box)).toEqual([b.id, c.id])
  expect(await written).toEqual({ ...a, ...delivered() })
  expect(await repo.find(a.id)).toEqual({ ...a, ...delivered() })

  const retry: DeliveryOutcome = { status: 'pending', attempts: 1, last_error: 'HTTP 503 Service Unavailable', last_status: 503, next_attempt_at: new Date(60_000).toISOString() }
  expect(await box.record(b.id, retry)).toMatchObject(retry)
  expect(box.pending(b.id)).toMatchObject(retry)
  expect(pendingIds(box)).toEqual([c.id, b.id])

  expect(await box.record(c.id, failed())).toMatchObject({ status: 'failed', attempts: 1, last_error: 'HTTP 400 Bad Request' })
  // One write for several outcomes; one of a delivery gone meanwhile (or another instance's) changes nothing.
  const [x, y] = [delivery('A'), delivery('A')]
  await box.add([x, y])
  expect(await repo.record([{ id: x.id, instanceId: 'A', outcome: delivered() }, { id: 'msg_gone', instanceId: 'A', outcome: failed() }, { id: y.id, instanceId: 'B', outcome: failed() }])).toEqual([true, false, false])
  expect((await repo.find(y.id))!.status).toBe('pending')
  expect(await box.record('msg_gone', failed())).toBeUndefined()
})

it('writes the outcomes of one moment together, in one write', async () => {
  const { box, repo } = await start()
  const rows = Array.from({ length: 40 }, () => delivery('A'))
  await box.add(rows)
  const writes = vi.spyOn(repo, 'record')
  await Promise.all(rows.map((d, i) => box.record(d.id, i % 2 ? delivered() : failed())))
  expect(writes).toHaveBeenCalledTimes(1)
  expect(writes.mock.calls[0]![0]).toHaveLength(40)
  expect(await repo.list('A', { status: 'delivered', limit: 100 })).toHaveLength(20)
  expect(await repo.list('A', { status: 'failed', limit: 100 })).toHaveLength(20)
})

it('a failed outcome write (disk full) leaves the table and puts the working set back: the delivery is sent again', async () => {
  const { database, box, repo } = await start()
  const d = delivery('A')
  await box.add([d])
  await database.limitGrowth(0)
  // A long error grows the row by pages the file may not take.
  const written = box.record(d.id, failed(1, `network error: ${'x'.repeat(100_000)}`))
  expect(box.pending(d.id)).toBeUndefined()
  await expect(written).rejects.toBeInstanceOf(StorageFullError)
  expect(box.pending(d.id)).toEqual(d)
  expect(await repo.find(d.id)).toEqual(d)
  await database.limitGrowth(null)
  await box.record(d.id, delivered())
  expect(box.pending(d.id)).toBeUndefined()
  expect((await repo.find(d.id))!.status).toBe('delivered')
})

it('keeps the newest delivered and failed rows within their bounds, per instance, and every pending one, across a reopen', async () => {
  const bounds = { keepDelivered: 2, maxFailed: 3 }
  const first = await start(bounds)
  const a = Array.from({ length: 6 }, () => delivery('A'))
  const b = delivery('B', { status: 'delivered' })
  await first.box.add([b, ...a])
  for (const d of a.slice(0, 4)) await first.box.record(d.id, delivered())
  expect((await first.repo.list('A', { status: 'delivered' })).map((x) => x.id)).toEqual([a[3]!.id, a[2]!.id])
  expect((await first.repo.list('B')).map((x) => x.id)).toEqual([b.id])

  const f = Array.from({ length: 5 }, () => delivery('A'))
  await first.box.add(f)
  await Promise.all(f.map((d) => first.box.record(d.id, failed())))
  expect((await first.repo.list('A', { status: 'failed' })).map((x) => x.id)).toEqual([f[4]!.id, f[3]!.id, f[2]!.id])
  expect((await first.repo.list('A', { status: 'pending' })).map((x) => x.id)).toEqual([a[5]!.id, a[4]!.id])
  expect(committedIds()).toHaveLength(1 + 2 + 2 + 3)
  await first.close()

  const again = await start(bounds)
  expect((await again.repo.list('A', { status: 'delivered' })).map((x) => x.id)).toEqual([a[3]!.id, a[2]!.id])
  expect((await again.repo.list('A', { status: 'failed' })).map((x) => x.id)).toEqual([f[4]!.id, f[3]!.id, f[2]!.id])
  expect(pendingIds(again.box)).toEqual([a[4]!.id, a[5]!.id])
})

it('stays bounded: 5,000 delivered events leave the newest 50 rows', async () => {
  const { box, repo } = await start()
  for (let round = 0; round < 50; round++) {
    const rows = Array.from({ length: 100 }, () => delivery('A'))
    await box.add(rows)
    await Promise.all(rows.map((r) => box.record(r.id, delivered())))
  }
  expect(committedIds()).toHaveLength(50)
  const kept = await repo.list('A', { limit: 500 })
  expect(kept).toHaveLength(50)
  expect(kept[0]!.id).toBe(`msg_${String(seq).padStart(24, '0')}`)
})

it('a restart resumes every pending delivery, retries with their times, in queue order', async () => {
  const first = await start()
  const rows = Array.from({ length: 5 }, () => delivery('A'))
  await first.box.add(rows)
  await first.box.record(rows[0]!.id, delivered())
  const retry: DeliveryOutcome = { status: 'pending', attempts: 2, last_error: 'network error: ECONNREFUSED', last_status: null, next_attempt_at: new Date(9_000).toISOString() }
  await first.box.record(rows[2]!.id, retry)
  await first.close()
  const again = await start()
  expect(pendingIds(again.box)).toEqual([rows[1]!.id, rows[2]!.id, rows[3]!.id, rows[4]!.id])
  expect(again.box.pending(rows[2]!.id)).toEqual({ ...rows[2]!, ...retry })
})

it('requeues a failed delivery to a new URL; refuses a delivered one and another instance’s', async () => {
  const { box, repo } = await start()
  const [d, done] = [delivery('A'), delivery('A')]
  await box.add([d, done])
  await box.record(d.id, failed())
  await box.record(done.id, delivered())
  expect(await box.requeue('B', d.id, null, new Date(7).toISOString())).toEqual({ refused: 'unknown' })
  expect(await box.requeue('A', 'msg_unknown', null, new Date(7).toISOString())).toEqual({ refused: 'unknown' })
  expect(await box.requeue('A', done.id, null, new Date(7).toISOString())).toEqual({ refused: 'delivered' })
  expect(pendingIds(box)).toEqual([])

  const res = await box.requeue('A', d.id, 'http://a.test/new', new Date(7).toISOString())
  expect(res).toEqual({ requeued: { ...d, ...failed(), status: 'pending', url: 'http://a.test/new', next_attempt_at: new Date(7).toISOString() } })
  expect(await repo.find(d.id)).toEqual('requeued' in res ? res.requeued : null)
  expect([...box.pendingByEndpoint().keys()]).toEqual(['http://a.test/new'])
  // Without a URL the delivery keeps its own.
  await box.record(d.id, failed(2))
  expect(await box.requeue('A', d.id, null, new Date(8).toISOString())).toMatchObject({ requeued: { url: 'http://a.test/new', attempts: 2 } })
})

it('removeInstance drops only that instance, from the table and the working set; a late add stays out of the working set', async () => {
  const { box, repo } = await start()
  const rows = [delivery('A'), delivery('B'), delivery('A', { status: 'failed' })]
  await box.add(rows)
  const removing = box.removeInstance('A')
  expect(pendingIds(box)).toEqual([rows[1]!.id])
  // An event of the deleted instance still being stored: its row lands after the delete (the next start drops it), never sent.
  const late = delivery('A')
  await box.add([late])
  await removing
  expect(pendingIds(box)).toEqual([rows[1]!.id])
  expect(committedIds()).toEqual([rows[1]!.id, late.id])
  expect(await repo.removeInstance('A')).toBe(1)
  expect(await repo.instanceIds()).toEqual(['B'])
})

it('indexes pending deliveries by endpoint, in queue order', async () => {
  const { box } = await start()
  const a1 = delivery('A', { url: 'http://a.test/' })
  const b1 = delivery('A', { url: 'http://b.test/' })
  const a2 = delivery('B', { url: 'http://a.test/' })
  await box.add([a1, b1, a2])
  const view = (): Record<string, string[]> => Object.fromEntries([...box.pendingByEndpoint()].map(([url, q]) => [url, [...q.keys()]]))
  expect(view()).toEqual({ 'http://a.test/': [a1.id, a2.id], 'http://b.test/': [b1.id] })
  await box.record(a1.id, delivered())
  await box.record(b1.id, failed())
  await box.requeue('A', b1.id, 'http://a.test/', new Date(0).toISOString())
  expect(view()).toEqual({ 'http://a.test/': [a2.id, b1.id] })
})
