/**
 * The webhook service over real storage (a data dir opened with openStorage: lowdb configuration,
 * SQLite deliveries), the real event bus and a real local receiver, without the HTTP API in front
 * (test/api/webhooks.test.ts covers the routes through the core): a durable event's delivery is
 * committed before the event is answered and before its first attempt; a restart resumes what was
 * pending; manual retries (404 for another instance's or an unknown id, 409 once delivered, to the
 * corrected URL); deliveries of deleted and vanished instances are dropped. Time runs on a manual
 * clock; what is stored is read through a database connection of the test's own.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { CoreEventBus } from '../../../src/main/events'
import { newObjectId, newSecret } from '../../../src/main/ids'
import { silentLogger } from '../../../src/main/logger'
import { defaultSettings } from '../../../src/main/services/instances/instance-registry'
import { openStorage, type Storage } from '../../../src/main/store/storage'
import { WebhookDeliveryRepo, webhookDeliveryRows } from '../../../src/main/store/repos/webhook-delivery-repo'
import { WebhookService } from '../../../src/main/webhooks/webhook-service'
import { fetchTransport, type WebhookTransport } from '../../../src/main/webhooks/webhook-transport'
import type { Instance, LoggedMessage } from '../../../src/shared/schemas/records'
import type { WebhookDelivery } from '../../../src/shared/schemas/webhooks'
import { ManualClock } from '../../helpers/manual-clock'
import { freePort, startReceiver, verify, type Receiver } from '../../helpers/webhook-receiver'

const WAIT = { timeout: 5000, interval: 5 }
let dir: string
let clock: ManualClock
let rx: Receiver
let app: { storage: Storage; events: CoreEventBus; webhooks: WebhookService } | null = null

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-webhook-service-'))
  clock = new ManualClock()
  rx = await startReceiver()
})
afterEach(async () => {
  await stop()
  await rx.stop()
  expect(clock.pending).toBe(0)
  await rm(dir, { recursive: true, force: true })
})

/** Opens the data dir and starts the webhook service on it. */
async function start(transport: WebhookTransport = fetchTransport(fetch)) {
  const storage = await openStorage(dir)
  const events = new CoreEventBus()
  const webhooks = await WebhookService.open({
    instances: storage.repos.instances,
    deliveries: new WebhookDeliveryRepo({ db: storage.database.db, write: (work) => storage.database.write(work) }),
    events,
    logger: silentLogger(),
    clock,
    random: () => 0.5,
    transport
  })
  await webhooks.start()
  app = { storage, events, webhooks }
  return app
}

async function stop(): Promise<void> {
  if (!app) return
  await app.webhooks.close()
  await app.storage.close()
  app = null
}

/** A stored instance whose onMessage and onAnyMessage go to `url`. */
async function instance(url: string): Promise<Instance> {
  const settings = defaultSettings('sandbox')
  const now = new Date().toISOString()
  return app!.storage.repos.instances.put({
    _id: newObjectId(),
    user_id: 'u',
    session_id: newSecret(18),
    settings: { ...settings, actions: { ...settings.actions, send_webhook: true }, webhook: { ...settings.webhook, url } },
    createdAt: now,
    updatedAt: now,
    __v: 0
  })
}

let n = 0
/** An inbound message (onMessage and onAnyMessage), emitted as the core does: resolves once its deliveries are stored. */
async function inbound(inst: Instance, text: string): Promise<void> {
  const message = { id: `IN${++n}`, chatId: '15550001111@s.whatsapp.net', fromMe: false, pushName: 'Ann', type: 'text', text, timestamp: clock.now(), status: 'DELIVERY_ACK', source: 'inbound' } as LoggedMessage
  await app!.events.emitDurable('message', { instanceId: inst._id, message })
}

/** The committed deliveries, oldest first, through a connection of the test's own. */
function committed(): WebhookDelivery[] {
  const db = new DatabaseSync(join(dir, 'chatapp.db'), { readOnly: true })
  try {
    return (db.prepare('SELECT * FROM webhook_deliveries ORDER BY seq').all() as unknown as Parameters<typeof webhookDeliveryRows.fromRow>[0][]).map(webhookDeliveryRows.fromRow)
  } finally {
    db.close()
  }
}

it('commits a durable event’s deliveries before it is answered and before the first attempt; delivers them signed', async () => {
  const seenCommitted: boolean[] = []
  const { post } = fetchTransport(fetch)
  await start({
    post: async (url, req) => {
      seenCommitted.push(committed().some((d) => d.id === req.headers['webhook-id']))
      return post(url, req)
    },
    close: async () => {}
  })
  const inst = await instance(rx.url)
  await inbound(inst, 'hello')
  expect(committed().map((d) => `${d.event} ${d.status}`).sort()).toEqual(['onAnyMessage pending', 'onMessage pending'])
  await vi.waitFor(async () => expect(await app!.webhooks.list(inst._id, { status: 'delivered' })).toHaveLength(2), WAIT)
  expect(seenCommitted).toEqual([true, true])
  const bodies = rx.requests.map((r) => verify(r, inst.settings.webhook.secret))
  expect(bodies.map((b) => b.event).sort()).toEqual(['onAnyMessage', 'onMessage'])
  const listed = await app!.webhooks.list(inst._id)
  // Newest first: onAnyMessage was queued after onMessage.
  expect(listed.map((d) => d.event)).toEqual(['onAnyMessage', 'onMessage'])
  for (const d of listed) expect(d).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, last_error: null, next_attempt_at: null })
  expect(committed().map((d) => d.status)).toEqual(['delivered', 'delivered'])
})

it('resumes the pending deliveries after a restart and sends them once the receiver is up', async () => {
  const port = await freePort()
  await start()
  const inst = await instance(`http://127.0.0.1:${port}/hook`)
  await inbound(inst, 'while down')
  await vi.waitFor(async () => expect((await app!.webhooks.list(inst._id)).map((d) => d.attempts)).toEqual([1, 1]), WAIT)
  const queued = await app!.webhooks.list(inst._id)
  for (const d of queued) expect(d).toMatchObject({ status: 'pending', last_error: expect.stringMatching(/^network error: ECONNREFUSED/) })
  await stop()
  expect(clock.pending).toBe(0)
  expect(committed().map((d) => [d.id, d.status, d.attempts])).toEqual([...queued].reverse().map((d) => [d.id, 'pending', 1]))

  // Time passes while the app is off: the retries are due at the next start and go at once.
  clock.offset += 10_000
  const up = await startReceiver(port)
  try {
    await start()
    await vi.waitFor(() => expect(up.requests).toHaveLength(2), WAIT)
    await vi.waitFor(async () => expect(await app!.webhooks.list(inst._id, { status: 'delivered' })).toHaveLength(2), WAIT)
    expect(new Set(up.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(queued.map((d) => d.id)))
    expect((await app!.webhooks.list(inst._id)).map((d) => d.attempts)).toEqual([2, 2])
  } finally {
    await up.stop()
  }
})

it('retries by hand: only the instance’s own, not once delivered, to the corrected URL', async () => {
  await start()
  rx.respond = (req) => (req.path === '/hook' ? { status: 200 } : { status: 404 })
  const inst = await instance(`${rx.url}/wrong`)
  const other = await instance(rx.url)
  await inbound(inst, 'lost')
  await vi.waitFor(async () => expect((await app!.webhooks.list(inst._id, { status: 'failed' })).map((d) => d.last_status)).toEqual([404, 404]), WAIT)
  const [d] = await app!.webhooks.list(inst._id)
  await expect(app!.webhooks.retry(other._id, d!.id)).rejects.toMatchObject({ code: 'NOT_FOUND' })
  await expect(app!.webhooks.retry(inst._id, 'msg_000000000000000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' })

  await app!.storage.repos.instances.update(inst._id, (i) => void (i.settings.webhook.url = rx.url))
  const requeued = await app!.webhooks.retry(inst._id, d!.id)
  expect(requeued).toMatchObject({ id: d!.id, status: 'pending', url: rx.url, attempts: 1 })
  await vi.waitFor(async () => expect((await app!.webhooks.list(inst._id, { status: 'delivered' })).map((x) => x.id)).toEqual([d!.id]), WAIT)
  expect(rx.requests.map((r) => `${r.path} ${r.headers['webhook-id'] === d!.id}`).filter((x) => x.endsWith('true'))).toEqual(['/hook/wrong true', '/hook true'])
  await expect(app!.webhooks.retry(inst._id, d!.id)).rejects.toMatchObject({ code: 'CONFLICT' })
  expect(committed().find((x) => x.id === d!.id)).toMatchObject({ status: 'delivered', attempts: 2, url: rx.url })
})

it('drops the deliveries of a deleted instance at once, and those of vanished instances at start', async () => {
  const port = await freePort()
  await start()
  const a = await instance(`http://127.0.0.1:${port}/hook`)
  const b = await instance(`http://127.0.0.1:${port}/hook`)
  await inbound(a, 'for a')
  await inbound(b, 'for b')
  await vi.waitFor(async () => expect((await app!.webhooks.list(b._id)).map((d) => d.attempts)).toEqual([1, 1]), WAIT)
  await app!.storage.repos.instances.remove(a._id)
  app!.events.emit('changed', { instanceId: a._id, what: 'deleted' })
  await vi.waitFor(async () => expect(await app!.webhooks.list(a._id)).toEqual([]), WAIT)
  expect(new Set(committed().map((d) => d.instance_id))).toEqual(new Set([b._id]))

  // A delivery of an instance the configuration no longer has (stored while the app was off).
  const [kept] = await app!.webhooks.list(b._id)
  await stop()
  const storage = await openStorage(dir)
  await new WebhookDeliveryRepo({ db: storage.database.db, write: (work) => storage.database.write(work) }).add([{ ...kept!, id: 'msg_orphan', instance_id: 'gone' }])
  await storage.close()
  expect(committed().map((d) => d.id)).toContain('msg_orphan')
  await start()
  expect(committed().map((d) => d.id)).not.toContain('msg_orphan')
  expect(new Set(committed().map((d) => d.instance_id))).toEqual(new Set([b._id]))
})
