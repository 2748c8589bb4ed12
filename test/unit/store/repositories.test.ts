/**
 * The repositories besides the message log (src/main/store/repos), each on a real SQLite file and on
 * a real PostgreSQL server, expecting the same results from both (docs/design.md §22): contacts and their
 * search, the inbox's conversations (filters, search, assignment), the people at the desk, webhook
 * deliveries, channel credentials and kept WhatsApp messages, the bot's reply marks and hand-off
 * pauses.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Contact, LoggedMessage } from '../../../src/shared/schemas/records'
import type { WebhookDelivery } from '../../../src/shared/schemas/webhooks'
import type { Repositories } from '../../../src/main/store/repos'
import { tempStorage, type TempStorage } from '../../helpers/temp-storage'
import { BACKENDS } from '../../helpers/postgres'

const NOW = '2026-11-27T00:00:00.000Z'
const CHAT = '15550001111@s.whatsapp.net'
let n = 0

function msg(fields: Partial<LoggedMessage> = {}): LoggedMessage {
  n++
  return { id: `ID${n}`, chatId: CHAT, fromMe: false, pushName: 'Ann', type: 'text', text: `message ${n}`, timestamp: 1_700_000_000_000 + n, status: 'RECEIVED', source: 'inbound', ...fields }
}

function contact(fields: Partial<Contact> & Pick<Contact, '_id' | 'name' | 'number'>): Contact {
  return { client_id: 'u', instance_id: 'i1', group_id: null, channel: 'whatsapp', labels: [], notes: '', opted_out: false, last_seen_at: null, createdAt: NOW, updatedAt: NOW, __v: 0, ...fields }
}

function delivery(id: string, fields: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id,
    instance_id: 'i1',
    event: 'onMessage',
    url: 'https://hooks.example/in',
    payload: { event: 'onMessage', instance_id: 'i1', session_id: 's1', data: { n: id }, timestamp: NOW },
    status: 'pending',
    attempts: 0,
    last_error: null,
    last_status: null,
    next_attempt_at: NOW,
    created_at: NOW,
    delivered_at: null,
    ...fields
  }
}

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TempStorage
  let repos: Repositories
  beforeEach(async () => {
    t = await tempStorage(backend)
    repos = t.storage.repos
  })
  afterEach(async () => {
    await t.close()
  })

  it('runs on the database it was asked for', () => {
    expect(t.storage.database.dialect).toBe(backend)
  })

  describe('contacts', () => {
    beforeEach(async () => {
      await repos.contacts.putMany([
        contact({ _id: 'c1', name: 'José Müller', number: '5511987650001', labels: ['VIP', 'late'], notes: 'prefers Crème brûlée' }),
        contact({ _id: 'c2', name: 'Ann Lee', number: '15550001111', labels: ['vip'], createdAt: '2026-11-27T00:00:01.000Z' }),
        contact({ _id: 'c3', name: 'Bob 100%', number: '15550002222', instance_id: 'i2', createdAt: '2026-11-27T00:00:02.000Z' })
      ])
    })

    const names = async (filter: Parameters<Repositories['contacts']['page']>[0]) => (await repos.contacts.page(filter, 0, 50)).items.map((c) => c.name)

    it('finds parts of names, numbers and notes, any case and any accents', async () => {
      expect(await names({ q: 'jose' })).toEqual(['José Müller'])
      expect(await names({ q: 'MULL' })).toEqual(['José Müller'])
      expect(await names({ q: 'creme brul' })).toEqual(['José Müller'])
      expect(await names({ q: '98765' })).toEqual(['José Müller'])
      expect(await names({ q: '1555000' })).toEqual(['Ann Lee', 'Bob 100%'])
      expect(await names({ q: '1555000', instanceIds: ['i1'] })).toEqual(['Ann Lee'])
    })

    it('short terms match by LIKE (ASCII any case); wildcards are taken literally', async () => {
      expect(await names({ q: 'LE' })).toEqual(['José Müller', 'Ann Lee'])
      expect(await names({ q: '0%' })).toEqual(['Bob 100%'])
      expect(await names({ q: '_' })).toEqual([])
    })

    it('filters by label in any case, counts, pages, finds by number', async () => {
      expect(await names({ label: 'vip' })).toEqual(['José Müller', 'Ann Lee'])
      const page = await repos.contacts.page({}, 1, 1)
      expect({ total: page.total, names: page.items.map((c) => c.name) }).toEqual({ total: 3, names: ['Ann Lee'] })
      expect((await repos.contacts.byNumber('i1', '5511987650001'))?.labels).toEqual(['VIP', 'late'])
      expect([...(await repos.contacts.byNumbers('i1', ['15550001111', '0000'])).keys()]).toEqual(['15550001111'])
    })

    it('an update and a removal keep the search in step', async () => {
      await repos.contacts.update('c1', (d) => {
        d.name = 'Joana Silva'
        d.notes = ''
      })
      expect(await names({ q: 'muller' })).toEqual([])
      expect(await names({ q: 'joana' })).toEqual(['Joana Silva'])
      expect(await repos.contacts.remove('c1')).toBe(true)
      expect(await names({ q: 'joana' })).toEqual([])
    })
  })

  describe('conversations', () => {
    const OTHER = '15550002222@s.whatsapp.net'
    beforeEach(async () => {
      await repos.messages.appendMany('i1', [msg({ text: 'Quero uma pizza de calabresa' }), msg({ chatId: OTHER, pushName: 'Bob', text: 'Olá, vocês abrem domingo?' })])
      await repos.messages.append('i2', msg({ chatId: OTHER, pushName: 'Bob', text: 'from the second number' }))
    })
    const chats = async (instanceIds: string[], filter: Parameters<Repositories['conversations']['list']>[1] = {}) =>
      (await repos.conversations.list(instanceIds, filter, 10, Date.now())).map((c) => `${c.instance_id}/${c.chatId.split('@')[0]}`)

    it('lists several instances newest first, and filters by name, number and message text', async () => {
      expect(await chats(['i1', 'i2'])).toEqual(['i2/15550002222', 'i1/15550002222', 'i1/15550001111'])
      expect(await chats(['i1'], { q: 'BOB' })).toEqual(['i1/15550002222'])
      expect(await chats(['i1', 'i2'], { q: '0001111' })).toEqual(['i1/15550001111'])
      expect(await chats(['i1', 'i2'], { q: 'calab' })).toEqual(['i1/15550001111'])
      expect(await chats(['i1', 'i2'], { q: 'voces' })).toEqual(['i1/15550002222'])
    })

    it('resolves, reopens on a customer message, and filters by status and label', async () => {
      await repos.conversations.setResolved('i1', CHAT, Date.now())
      expect(await chats(['i1'], { status: 'resolved' })).toEqual(['i1/15550001111'])
      expect(await chats(['i1'], { status: 'open' })).toEqual(['i1/15550002222'])
      await repos.contacts.put(contact({ _id: 'c1', name: 'Ann', number: '15550001111', labels: ['Gold'] }))
      expect(await chats(['i1'], { label: 'gold' })).toEqual(['i1/15550001111'])
    })

    it('assigns with a timeline, and picks the least recently assigned person', async () => {
      expect(await repos.conversations.assign('i1', CHAT, 's1', 1000, { actor: '"owner"', detail: '{"to":"s1"}' })).toEqual({ before: null, changed: true })
      expect(await repos.conversations.assign('i1', OTHER, 's2', 2000, { actor: '"owner"', detail: '{"to":"s2"}' })).toEqual({ before: null, changed: true })
      expect(await repos.conversations.assign('i1', CHAT, 's2', 3000, { actor: '"owner"', detail: '{"to":"s2"}' }, true)).toEqual({ before: 's1', changed: false })
      expect(await repos.conversations.events('i1', CHAT)).toEqual([{ at: 1000, kind: 'assigned', actor: 'owner', detail: { to: 's1' } }])
      expect(await repos.conversations.leastRecentlyAssigned('i1', ['s2', 's1', 's3'])).toBe('s3')
      expect(await repos.conversations.leastRecentlyAssigned('i1', ['s2', 's1'])).toBe('s1')
      expect(await chats(['i1'], { assignee: 's2' })).toEqual(['i1/15550002222'])
      expect(await chats(['i1', 'i2'], { assignee: null })).toEqual(['i2/15550002222'])
    })
  })

  describe('the people at the desk', () => {
    it('staff, invites and sessions; removing a member cascades and unassigns their chats', async () => {
      await repos.staff.create({ id: 's1', name: 'Bea', login: 'bea', role: 'agent', instanceIds: ['i1'], createdAt: NOW, updatedAt: NOW })
      await expect(repos.staff.create({ id: 's2', name: 'Other Bea', login: 'bea', role: 'agent', instanceIds: null, createdAt: NOW, updatedAt: NOW })).rejects.toThrow()
      await repos.staff.setPassword('s1', 'scrypt$hash', NOW)
      await repos.staff.loginOutcome('s1', { ok: false, lockUntil: 1_764_200_000_000 })
      await repos.staff.loginOutcome('s1', { ok: false, lockUntil: 1_764_200_000_000 })
      expect(await repos.staff.credentials('bea')).toMatchObject({ member: { id: 's1', active: true, instanceIds: ['i1'] }, passwordHash: 'scrypt$hash', failedLogins: 2, lockedUntil: 1_764_200_000_000 })
      await repos.invites.put('s1', 'code1', 5000)
      expect(await repos.invites.redeem('code1', 4000)).toBe('s1')
      expect(await repos.invites.redeem('code1', 4000)).toBeUndefined()
      await repos.sessions.create('tok1', { staffId: 's1', csrfToken: 'c', expiresAt: 1_764_200_000_000, createdAt: 1_764_100_000_000, ip: null })
      expect(await repos.sessions.find('tok1')).toEqual({ staffId: 's1', csrfToken: 'c', expiresAt: 1_764_200_000_000 })
      expect(await repos.sessions.signedIn(1_764_150_000_000)).toEqual(['s1'])
      await repos.messages.append('i1', msg())
      await repos.conversations.assign('i1', CHAT, 's1', 1000, { actor: '"owner"', detail: 'null' })
      expect(await repos.staff.remove('s1')).toBe(true)
      expect(await repos.sessions.find('tok1')).toBeUndefined()
      expect((await repos.conversations.get('i1', CHAT, Date.now()))?.assigned_to).toBeNull()
    })

    it('API keys and the audit log (newest first, by cursor and kind, purged by age)', async () => {
      await repos.apiKeys.create({ id: 'k1', name: 'script', scopes: ['messages:send'], instanceIds: null, createdAt: NOW }, 'hash1')
      await repos.apiKeys.markUsed('k1', NOW, '127.0.0.1')
      expect(await repos.apiKeys.revoke('k1', NOW)).toBe(true)
      expect(await repos.apiKeys.revoke('k1', NOW)).toBe(false)
      expect(await repos.apiKeys.findWithHash('k1')).toMatchObject({ hash: 'hash1', key: { lastUsedIp: '127.0.0.1', revokedAt: NOW, scopes: ['messages:send'] } })
      for (let i = 1; i <= 5; i++) await repos.audit.add({ at: 1_764_000_000_000 + i, kind: i % 2 ? 'login' : 'key', actor: 'owner', ip: null, detail: { i } })
      const newest = await repos.audit.list({ limit: 2 })
      expect(newest.map((e) => e.detail)).toEqual([{ i: 5 }, { i: 4 }])
      expect((await repos.audit.list({ limit: 10, beforeSeq: newest[1]!.seq, kind: 'login' })).map((e) => e.at)).toEqual([1_764_000_000_003, 1_764_000_000_001])
      expect(await repos.audit.purgeBefore(1_764_000_000_003)).toBe(2)
    })
  })

  it('webhook deliveries: the outbox, outcomes, bounds, a manual retry', async () => {
    await repos.webhookDeliveries.add([delivery('d1'), delivery('d2'), delivery('d3', { instance_id: 'i2' })])
    await expect(repos.webhookDeliveries.add([delivery('d4'), delivery('d1')])).rejects.toThrow()
    expect((await repos.webhookDeliveries.pending()).map((d) => d.id)).toEqual(['d1', 'd2', 'd3'])
    const found = await repos.webhookDeliveries.record([
      { id: 'd1', instanceId: 'i1', outcome: { status: 'delivered', attempts: 1, last_error: null, last_status: 200, next_attempt_at: null, delivered_at: NOW } },
      { id: 'd2', instanceId: 'i1', outcome: { status: 'failed', attempts: 3, last_error: 'HTTP 410', last_status: 410, next_attempt_at: null } },
      { id: 'gone', instanceId: 'i1', outcome: { status: 'failed', attempts: 1, last_error: null, last_status: null, next_attempt_at: null } }
    ])
    expect(found).toEqual([true, true, false])
    expect((await repos.webhookDeliveries.list('i1')).map((d) => [d.id, d.status, d.last_status])).toEqual([
      ['d2', 'failed', 410],
      ['d1', 'delivered', 200]
    ])
    expect(await repos.webhookDeliveries.requeue('i1', 'd1', null, NOW)).toEqual({ refused: 'delivered' })
    expect(await repos.webhookDeliveries.requeue('i1', 'd2', 'https://hooks.example/new', NOW)).toMatchObject({ requeued: { id: 'd2', status: 'pending', url: 'https://hooks.example/new', payload: { data: { n: 'd2' } } } })
    expect((await repos.webhookDeliveries.instanceIds()).sort()).toEqual(['i1', 'i2'])
    expect(await repos.webhookDeliveries.removeInstance('i1')).toBe(2)
  })

  it('webhook deliveries: a busy moment\'s outcomes, each delivery with its own time and status', async () => {
    // More outcomes than one IN list holds (store/repos/in-lists.ts), written grouped by what they set.
    const ids = Array.from({ length: 600 }, (_, i) => `b${i}`)
    await repos.webhookDeliveries.add([...ids.map((id) => delivery(id)), delivery('other', { instance_id: 'i2' })])
    const at = (i: number) => new Date(Date.parse(NOW) + i * 7).toISOString()
    const retried = (i: number) => i % 5 === 0 || i === 599
    const found = await repos.webhookDeliveries.record([
      ...ids.map((id, i) =>
        i % 5 === 0
          ? { id, instanceId: 'i1', outcome: { status: 'pending' as const, attempts: 1, last_error: 'HTTP 503', last_status: 503, next_attempt_at: at(1000 + i) } }
          : { id, instanceId: 'i1', outcome: { status: 'delivered' as const, attempts: 1, last_error: null, last_status: 200, next_attempt_at: null, delivered_at: at(i) } }
      ),
      // A later outcome of the same delivery in the same call is what it is left with.
      { id: 'b599', instanceId: 'i1', outcome: { status: 'pending', attempts: 2, last_error: 'HTTP 503', last_status: 503, next_attempt_at: at(1599) } },
      // Another instance's delivery named with the wrong instance is not found, and not changed.
      { id: 'other', instanceId: 'i1', outcome: { status: 'failed', attempts: 1, last_error: null, last_status: null, next_attempt_at: null } }
    ])
    expect(found).toEqual([...ids.map(() => true), true, false])
    const stored = await repos.webhookDeliveries.list('i1', { limit: 1000 })
    // The bounds keep the newest 50 delivered (by insertion), each with its own time.
    const delivered = ids.map((id, i) => ({ id, i })).filter(({ i }) => !retried(i)).slice(-50).reverse()
    expect(stored.filter((d) => d.status === 'delivered').map((d) => [d.id, d.delivered_at, d.last_status, d.next_attempt_at])).toEqual(delivered.map(({ id, i }) => [id, at(i), 200, null]))
    const pending = ids.map((id, i) => ({ id, i })).filter(({ i }) => retried(i)).reverse()
    expect(stored.filter((d) => d.status === 'pending').map((d) => [d.id, d.attempts, d.next_attempt_at, d.delivered_at])).toEqual(pending.map(({ id, i }) => [id, i === 599 ? 2 : 1, at(i === 599 ? 1599 : 1000 + i), null]))
    expect(await repos.webhookDeliveries.list('i2')).toMatchObject([{ id: 'other', status: 'pending', attempts: 0 }])
  })

  it('channel credentials and Signal keys, and kept WhatsApp messages', async () => {
    await repos.channelAuth.saveCreds('i1', '{"me":1}', NOW)
    await repos.channelAuth.saveCreds('i1', '{"me":2}', NOW)
    expect(await repos.channelAuth.creds('i1')).toBe('{"me":2}')
    await repos.channelAuth.applyKeys('i1', [
      { type: 'pre-key', id: '1', value: '"a"' },
      { type: 'pre-key', id: '2', value: '"b"' },
      { type: 'session', id: 'x', value: '"s"' },
      { type: 'pre-key', id: '1', value: null }
    ])
    expect([...(await repos.channelAuth.keys('i1', 'pre-key', ['1', '2', '3']))]).toEqual([['2', '"b"']])
    expect(await repos.channelAuth.countKeys('i1')).toBe(2)
    expect(await repos.channelAuth.countKeys('i1', 'session')).toBe(1)

    const bytes = (...b: number[]) => new Uint8Array(b)
    await repos.waMessages.put('i1', { id: 'w1', at: 1_764_000_000_000, own: true, message: bytes(1, 2) })
    // A later copy: newer bytes, and `own` stays once it was (the larger of the two).
    await repos.waMessages.put('i1', { id: 'w1', at: 1_764_000_000_500, own: false, message: bytes(3) })
    await repos.waMessages.put('i1', { id: 'w2', at: 1_764_000_001_000, own: false, message: bytes(4) })
    const w1 = await repos.waMessages.find('i1', 'w1')
    expect({ ...w1, message: [...w1!.message] }).toEqual({ id: 'w1', at: 1_764_000_000_000, own: true, message: [3] })
    expect((await repos.waMessages.recent('i1', 0, 1)).map((m) => m.id)).toEqual(['w2'])
    expect(await repos.waMessages.prune('i1', 0, 1)).toBe(1)
    expect(await repos.waMessages.count('i1')).toBe(1)
  })

  it('the bot: one reply mark per window, and hand-off pauses in force', async () => {
    const day = 86_400_000
    expect(await repos.replyMarks.claim('away', 'i1', CHAT, 1_764_000_000_000, day)).toBe(true)
    expect(await repos.replyMarks.claim('away', 'i1', CHAT, 1_764_000_000_000 + 1000, day)).toBe(false)
    expect(await repos.replyMarks.claim('away', 'i1', CHAT, 1_764_000_000_000 + day, day)).toBe(true)
    await repos.chatPauses.put({ _id: 'i1:a', instance_id: 'i1', chatId: 'a@s.whatsapp.net', since: '2026-11-27T01:00:00.000Z', until: null, reason: 'human_reply', by: 'desk' })
    await repos.chatPauses.put({ _id: 'i1:b', instance_id: 'i1', chatId: 'b@s.whatsapp.net', since: '2026-11-27T02:00:00.000Z', until: '2026-11-27T03:00:00.000Z', reason: 'human_reply', by: 'desk' })
    expect((await repos.chatPauses.inForce('i1', '2026-11-27T02:30:00.000Z')).map((p) => p.chatId)).toEqual(['b@s.whatsapp.net', 'a@s.whatsapp.net'])
    expect((await repos.chatPauses.inForce('i1', '2026-11-27T04:00:00.000Z')).map((p) => p.chatId)).toEqual(['a@s.whatsapp.net'])
  })

  describe('the bot\'s and the desk\'s records, outreach', () => {
    it('record tables: put, find, update (revision counted), list by instance, remove; labels renamed on contacts', async () => {
      const intent = { _id: 'a1', createdAt: NOW, updatedAt: NOW, __v: 0, client_id: 'u', instance_id: 'i1', title: 'Hours', keyword: 'hours,open', reply: 'We open at 9' }
      await repos.intents.putMany([intent, { ...intent, _id: 'a2', instance_id: 'i2' }])
      const updated = await repos.intents.update('a1', (d) => {
        d.reply = 'We open at 8'
      })
      expect(updated).toMatchObject({ reply: 'We open at 8' })
      expect(await repos.intents.find('a1')).toMatchObject({ reply: 'We open at 8', keyword: 'hours,open' })
      expect((await repos.intents.ofInstance('i1')).map((r) => r._id)).toEqual(['a1'])
      expect(await repos.intents.owned('i2', 'a1')).toBeUndefined()
      expect(await repos.intents.remove('a2')).toBe(true)

      await repos.quickReplies.put({ _id: 'q1', shortcut: 'hi', text: 'Hello!', createdAt: NOW, updatedAt: NOW })
      expect((await repos.quickReplies.byShortcut('hi'))?.text).toBe('Hello!')
      await repos.labels.put({ _id: 'l1', name: 'VIP', color: 'red', createdAt: NOW, updatedAt: NOW })
      await repos.contacts.put(contact({ _id: 'c1', name: 'Ann', number: '15550001111', labels: ['VIP'] }))
      await repos.labels.relabel('VIP', 'Gold', { put: { _id: 'l1', name: 'Gold', color: 'yellow', createdAt: NOW, updatedAt: NOW } })
      expect({ count: await repos.labels.count(), name: (await repos.labels.byName('gold'))?.name, on: (await repos.contacts.find('c1'))?.labels }).toEqual({ count: 1, name: 'Gold', on: ['Gold'] })
    })

    it('broadcasts by status, schedules due soonest first, counted outreach sends, survey runs', async () => {
      const b = { _id: 'b1', client_id: 'u', instance_id: 'i1', send_type: 'individual' as const, to: '1555', message: { text: 'Hi [name]' }, status: 'sending' as const, status_reason: null, sent: [], pending: [{ number: '1555', name: 'Ann', contact_id: null }], failed: [], skipped: [], current: null, schedule_id: null, createdAt: NOW, updatedAt: NOW, __v: 0 }
      await repos.broadcasts.put(b)
      await repos.broadcasts.put({ ...b, _id: 'b2', status: 'done', pending: [] })
      await repos.broadcasts.update('b1', (d) => {
        d.sent.push({ number: '1555', message_id: 'm1', at: NOW })
        d.pending = []
      })
      expect(await repos.broadcasts.countWithStatus('sending')).toBe(1)
      expect((await repos.broadcasts.find('b1'))?.sent.map((r) => r.message_id)).toEqual(['m1'])

      const sched = { _id: 's1', client_id: 'u', instance_id: 'i1', title: 'T', target: { type: 'chat' as const, id: '1555' }, message: { text: 'x' }, repeat: 'daily' as const, start_at: '2026-11-27T09:00', days: [], active: true, next_run_at: '2026-11-28T09:00:00.000Z', runs: [], createdAt: NOW, updatedAt: NOW, __v: 0 }
      await repos.schedules.putMany([sched, { ...sched, _id: 's2', next_run_at: '2026-11-27T09:00:00.000Z' }, { ...sched, _id: 's3', active: false, next_run_at: '2026-11-01T09:00:00.000Z' }])
      expect((await repos.schedules.due('2026-11-27T12:00:00.000Z')).map((r) => r._id)).toEqual(['s2'])
      expect(await repos.schedules.soonest()).toBe('2026-11-27T09:00:00.000Z')

      await repos.outreachSends.add({ _id: 'o1', instance_id: 'i1', to: '1555', at: 1_764_000_000_000 }, 0)
      await repos.outreachSends.add({ _id: 'o2', instance_id: 'i1', to: '1556', at: 1_764_100_000_000 }, 1_764_050_000_000)
      expect((await repos.outreachSends.since('i1', 0)).map((o) => o._id)).toEqual(['o2'])

      const run = { _id: 'r1', instance_id: 'i1', survey_title: 'S', chatId: CHAT, pushName: 'Ann', status: 'in_progress' as const, current_step_id: 'st1', answers: [], startedAt: NOW, updatedAt: NOW, completedAt: null }
      await repos.surveyRuns.put(run)
      await repos.surveyRuns.put({ ...run, _id: 'r2', status: 'completed', completedAt: NOW, handled: true })
      expect((await repos.surveyRuns.inProgress('i1', CHAT)).map((r) => r._id)).toEqual(['r1'])
      expect(await repos.surveyRuns.countInProgressSince('2026-11-26T00:00:00.000Z')).toBe(1)
      expect((await repos.surveyRuns.find('r2'))?.handled).toBe(true)
    })

    it('the bot\'s activity keeps the newest entries of an instance', async () => {
      for (let i = 1; i <= 4; i++) await repos.botActivity.add({ at: NOW, instance_id: 'i1', chatId: CHAT, messageId: `m${i}`, matched: 'intent "Hours"', actions: [{ action: 'reply', ok: i % 2 === 0 }] }, 3)
      const log = await repos.botActivity.ofInstance('i1', 10)
      expect(log.map((e) => [e.messageId, e.actions[0]!.ok])).toEqual([
        ['m2', true],
        ['m3', false],
        ['m4', true]
      ])
    })
  })
})
