/**
 * The webhook outbox (docs/design.md §11): durable adds, newest-first lists, and the bounds — delivered
 * entries pruned beyond keepDelivered, failed ones beyond maxFailed, pending ones never.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { WebhookOutbox } from '../../../src/main/webhooks/outbox'
import type { WebhookDelivery } from '../../../src/shared/schemas/webhooks'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-outbox-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

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
  const file = join(dir, 'webhook-outbox.json')
  const box = await WebhookOutbox.open(file)
  const d = delivery('A')
  await box.add([d])
  expect(JSON.parse(await readFile(file, 'utf8')).deliveries).toEqual([d])
  await box.close()
  const again = await WebhookOutbox.open(file)
  expect(again.pending().map((x) => x.id)).toEqual([d.id])
})

it('hides a delivery from pending() until its write is done', async () => {
  const box = await WebhookOutbox.open(join(dir, 'o.json'))
  const d = delivery('A')
  const adding = box.add([d])
  expect(box.get(d.id)).toBeDefined()
  expect(box.pending()).toEqual([])
  await adding
  expect(box.pending().map((x) => x.id)).toEqual([d.id])
})

it('lists one instance newest first, by status and limit', async () => {
  const box = await WebhookOutbox.open(join(dir, 'o.json'))
  const rows = [delivery('A'), delivery('B'), delivery('A', { status: 'failed' }), delivery('A')]
  await box.add(rows)
  expect(box.list('A').map((x) => x.id)).toEqual([rows[3]!.id, rows[2]!.id, rows[0]!.id])
  expect(box.list('A', { status: 'failed' }).map((x) => x.id)).toEqual([rows[2]!.id])
  expect(box.list('A', { limit: 1 }).map((x) => x.id)).toEqual([rows[3]!.id])
  expect(box.instanceIds().sort()).toEqual(['A', 'B'])
})

it('keeps the newest delivered and failed entries within their caps, per instance, and every pending one', async () => {
  const file = join(dir, 'o.json')
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
  expect(JSON.parse(await readFile(file, 'utf8')).deliveries).toHaveLength(1 + 2 + 2 + 3)
  expect(await box.update('msg_gone', { status: 'failed' })).toBe(false)
})

it('removeInstance drops only that instance', async () => {
  const file = join(dir, 'o.json')
  const box = await WebhookOutbox.open(file)
  await box.add([delivery('A'), delivery('B'), delivery('A')])
  await box.removeInstance('A')
  expect(JSON.parse(await readFile(file, 'utf8')).deliveries.map((d: WebhookDelivery) => d.instance_id)).toEqual(['B'])
})
