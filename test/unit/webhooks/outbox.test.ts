/**
 * The webhook outbox (docs/design.md §11): durable adds, newest-first lists, the bounds — delivered
 * entries pruned beyond keepDelivered, failed ones beyond maxFailed, pending ones never — and the
 * append-only file (issue 11 §11): a change appends one line whatever the size, a failed write leaves
 * memory as it was, compaction keeps the file bounded, an older outbox is carried over.
 */
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { readOutboxFile, WebhookOutbox } from '../../../src/main/webhooks/outbox'
import { enospc, injectFileFaults } from '../../../src/main/store/durable-file'
import type { WebhookDelivery } from '../../../src/shared/schemas/webhooks'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-outbox-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Ids of the pending deliveries the dispatcher may send, every endpoint's queue in order. */
function pendingIds(box: WebhookOutbox): string[] {
  return [...box.pendingByEndpoint().values()].flatMap((q) => [...q.keys()])
}

let seq = 0
function delivery(instance_id: string, patch: Partial<WebhookDelivery> = {}): WebhookDelivery {
  const id = `msg_${String(++seq).padStart(24, '0')}`
  return {
    id,
    instance_id,
    event: 'onMessage',
    url: 'http://127.0.0.1:9/hook',
    payload: { event: 'onMessage', instance_id, session_id: 's', data: { n: seq }, timestamp: new Date(0).toISOString() },
    status: 'pending',
    attempts: 0,
    last_error: null,
    last_status: null,
    next_attempt_at: null,
    created_at: new Date(seq).toISOString(),
    delivered_at: null,
    ...patch
  }
}

it('an add is on disk when it resolves and survives a reopen', async () => {
  const file = join(dir, 'webhook-outbox.jsonl')
  const box = await WebhookOutbox.open(file)
  const d = delivery('A')
  await box.add([d])
  expect(await readOutboxFile(file)).toEqual([d])
  await box.close()
  const again = await WebhookOutbox.open(file)
  expect(pendingIds(again)).toEqual([d.id])
})

it('hides a delivery from the pending queues until its write is done', async () => {
  const box = await WebhookOutbox.open(join(dir, 'o.jsonl'))
  const d = delivery('A')
  const adding = box.add([d])
  expect(box.get(d.id)).toBeDefined()
  expect(pendingIds(box)).toEqual([])
  await adding
  expect(pendingIds(box)).toEqual([d.id])
})

it('lists one instance newest first, by status and limit', async () => {
  const box = await WebhookOutbox.open(join(dir, 'o.jsonl'))
  const rows = [delivery('A'), delivery('B'), delivery('A', { status: 'failed' }), delivery('A')]
  await box.add(rows)
  expect(box.list('A').map((x) => x.id)).toEqual([rows[3]!.id, rows[2]!.id, rows[0]!.id])
  expect(box.list('A', { status: 'failed' }).map((x) => x.id)).toEqual([rows[2]!.id])
  expect(box.list('A', { limit: 1 }).map((x) => x.id)).toEqual([rows[3]!.id])
  expect(box.instanceIds().sort()).toEqual(['A', 'B'])
})

it('keeps the newest delivered and failed entries within their caps, per instance, and every pending one', async () => {
  const file = join(dir, 'o.jsonl')
  const box = await WebhookOutbox.open(file, { keepDelivered: 2, maxFailed: 3 })
  const a = Array.from({ length: 6 }, () => delivery('A'))
  const b = delivery('B', { status: 'delivered' })
  await box.add([b, ...a])
  for (const d of a.slice(0, 4)) await box.update(d.id, { status: 'delivered' })
  expect(box.list('A', { status: 'delivered' }).map((x) => x.id)).toEqual([a[3]!.id, a[2]!.id])
  expect(box.list('B').map((x) => x.id)).toEqual([b.id])

  const f = Array.from({ length: 5 }, () => delivery('A'))
  await box.add(f)
  for (const d of f) await box.update(d.id, { status: 'failed' })
  expect(box.list('A', { status: 'failed' }).map((x) => x.id)).toEqual([f[4]!.id, f[3]!.id, f[2]!.id])
  expect(box.list('A', { status: 'pending' }).map((x) => x.id)).toEqual([a[5]!.id, a[4]!.id])
  expect(await readOutboxFile(file, { keepDelivered: 2, maxFailed: 3 })).toHaveLength(1 + 2 + 2 + 3)
  await box.close()
  const again = await WebhookOutbox.open(file, { keepDelivered: 2, maxFailed: 3 })
  expect(again.list('A', { status: 'delivered' }).map((x) => x.id)).toEqual([a[3]!.id, a[2]!.id])
  expect(again.list('A', { status: 'failed' }).map((x) => x.id)).toEqual([f[4]!.id, f[3]!.id, f[2]!.id])
  await again.close()
  expect(await box.update('msg_gone', { status: 'failed' })).toBe(false)
})

it('removeInstance drops only that instance', async () => {
  const file = join(dir, 'o.jsonl')
  const box = await WebhookOutbox.open(file)
  await box.add([delivery('A'), delivery('B'), delivery('A')])
  await box.removeInstance('A')
  expect((await readOutboxFile(file)).map((d) => d.instance_id)).toEqual(['B'])
})

it('appends one short line per change, whatever the number of deliveries', async () => {
  const file = join(dir, 'o.jsonl')
  const box = await WebhookOutbox.open(file)
  await box.add(Array.from({ length: 1000 }, () => delivery('A')))
  const d = delivery('A')
  const before = (await stat(file)).size
  await box.add([d])
  const afterAdd = (await stat(file)).size
  await box.update(d.id, { status: 'delivered', attempts: 1, delivered_at: new Date(0).toISOString() })
  const afterUpdate = (await stat(file)).size
  expect(afterAdd - before).toBe(Buffer.byteLength(JSON.stringify({ put: d }) + '\n'))
  expect(afterUpdate - afterAdd).toBeLessThan(200)
  await box.close()
})

it('a write that fails (disk full) leaves memory as it was and rejects; the next one works', async () => {
  const file = join(dir, 'o.jsonl')
  const box = await WebhookOutbox.open(file)
  const kept = delivery('A')
  await box.add([kept])
  injectFileFaults({ beforeWrite: (f) => { throw enospc(f) } })
  try {
    const lost = delivery('A')
    await expect(box.add([lost])).rejects.toThrow(/ENOSPC/)
    expect(box.get(lost.id)).toBeUndefined()
    await expect(box.update(kept.id, { status: 'delivered' })).rejects.toThrow(/ENOSPC/)
    expect(box.get(kept.id)?.status).toBe('pending')
    expect(pendingIds(box)).toEqual([kept.id])
    await expect(box.removeInstance('A')).rejects.toThrow(/ENOSPC/)
    expect(box.list('A').map((x) => x.id)).toEqual([kept.id])
  } finally {
    injectFileFaults(null)
  }
  const next = delivery('A')
  await box.add([next])
  expect((await readOutboxFile(file)).map((x) => x.id)).toEqual([kept.id, next.id])
  await box.close()
})

it('compacts: 5,000 delivered events leave a file that holds the kept entries only', async () => {
  const file = join(dir, 'o.jsonl')
  const box = await WebhookOutbox.open(file, { keepDelivered: 50, compactAfterLines: 500 })
  for (let round = 0; round < 50; round++) {
    const rows = Array.from({ length: 100 }, () => delivery('A'))
    await box.add(rows)
    await Promise.all(rows.map((r) => box.update(r.id, { status: 'delivered' })))
  }
  const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean).length
  expect(lines).toBeLessThanOrEqual(500 + 200)
  expect(box.list('A', { limit: 1000 })).toHaveLength(50)
  await box.close()
  const again = await WebhookOutbox.open(file)
  expect(again.list('A', { limit: 1000 }).map((x) => x.id)).toEqual(box.list('A', { limit: 1000 }).map((x) => x.id))
  await again.close()
})

it('cuts off a torn last line (a crash mid-append) and keeps the whole ones', async () => {
  const file = join(dir, 'o.jsonl')
  const box = await WebhookOutbox.open(file)
  const d = delivery('A')
  await box.add([d])
  await box.close()
  await appendFile(file, '{"put":{"id":"msg_torn","inst')
  const again = await WebhookOutbox.open(file)
  expect(pendingIds(again)).toEqual([d.id])
  const e = delivery('A')
  await again.add([e])
  expect((await readOutboxFile(file)).map((x) => x.id)).toEqual([d.id, e.id])
  await again.close()
})

it('carries over the outbox of an older version (webhook-outbox.json) once', async () => {
  const rows = [delivery('A'), delivery('A', { status: 'delivered' })]
  await writeFile(join(dir, 'webhook-outbox.json'), JSON.stringify({ version: 1, deliveries: rows }))
  const box = await WebhookOutbox.open(join(dir, 'webhook-outbox.jsonl'))
  expect(box.list('A').map((x) => x.id)).toEqual([rows[1]!.id, rows[0]!.id])
  expect(pendingIds(box)).toEqual([rows[0]!.id])
  await box.close()
  await expect(stat(join(dir, 'webhook-outbox.json'))).rejects.toThrow(/ENOENT/)
  expect((await readOutboxFile(join(dir, 'webhook-outbox.jsonl'))).map((x) => x.id)).toEqual(rows.map((x) => x.id))
})

it('indexes pending deliveries by endpoint, in queue order', async () => {
  const box = await WebhookOutbox.open(join(dir, 'o.jsonl'))
  const a1 = delivery('A', { url: 'http://a.test/' })
  const b1 = delivery('A', { url: 'http://b.test/' })
  const a2 = delivery('B', { url: 'http://a.test/' })
  await box.add([a1, b1, a2])
  const view = (): Record<string, string[]> => Object.fromEntries([...box.pendingByEndpoint()].map(([url, q]) => [url, [...q.keys()]]))
  expect(view()).toEqual({ 'http://a.test/': [a1.id, a2.id], 'http://b.test/': [b1.id] })
  await box.update(a1.id, { status: 'delivered' })
  await box.update(b1.id, { url: 'http://a.test/' })
  expect(view()).toEqual({ 'http://a.test/': [a2.id, b1.id] })
  await box.close()
})
