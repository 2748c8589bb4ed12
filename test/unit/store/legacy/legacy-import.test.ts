/**
 * The import of a 0.1 data dir (docs/storage.md "Importing a data dir of release 0.1"): the fixture (test/fixtures/legacy-0.1.0,
 * taken while 0.1 ran and after a clean stop) copied to a temp dir and opened with `openStorage`,
 * against a real SQLite file and config.json. Every record is compared with what the 0.1 files hold
 * (read by the legacy readers, themselves checked against 0.1's code in
 * legacy-readers-vs-0.1.test.ts).
 */
import { appendFile, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { BufferJSON } from 'baileys'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../../src/main/store/db/database'
import { importLegacyDataDir } from '../../../../src/main/store/legacy/legacy-import'
import { LEGACY_DIRS, LEGACY_FILES } from '../../../../src/main/store/legacy/legacy-files'
import { windowEntries } from '../../../../src/main/store/legacy/legacy-documents'
import { openStorage, type Storage } from '../../../../src/main/store/storage'
import type { Logger } from '../../../../src/main/logger'
import type { LoggedMessage } from '../../../../src/shared/schemas/records'
import { FIXTURE, VARIANTS, configFile, copyFixture, dumpDatabase, legacyContents, type LegacyContents } from './legacy-helpers'
import { sentByOfSource } from '../../../../src/shared/domain/sent-by'

const dirs: string[] = []
const open: Storage[] = []
afterEach(async () => {
  for (const s of open.splice(0)) await s.close()
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

async function fixtureDir(variant: string): Promise<string> {
  const dir = await copyFixture(variant)
  dirs.push(dir)
  return dir
}

async function start(dir: string, logger: Logger = pino({ level: 'silent' })): Promise<Storage> {
  const s = await openStorage(dir, { logger })
  open.push(s)
  return s
}

/** A logger whose warnings the test reads. */
function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = []
  const logger: Logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) })
  return { logger, lines }
}

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v, BufferJSON.replacer))
const byId = <T extends { _id: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => a._id.localeCompare(b._id))

/** What 0.1's inbox showed of a chat (0.1's services/inbox/conversation-list.ts, at 9aeed71). */
function conversationAs01(chat: LoggedMessage[], state: { read_until: number; resolved_at: number | null } | undefined) {
  const customer = (m: LoggedMessage) => m.source === 'inbound' && m.type !== 'undecryptable'
  const person = (m: LoggedMessage) => m.source === 'desk' || m.source === 'phone'
  const lastCustomer = Math.max(0, ...chat.filter(customer).map((m) => m.timestamp))
  const lastPerson = Math.max(0, ...chat.filter(person).map((m) => m.timestamp))
  const readUntil = Math.max(state?.read_until ?? 0, lastPerson)
  return {
    last: chat.at(-1)!.id,
    unread: chat.filter((m) => customer(m) && m.timestamp > readUntil).length,
    status: state?.resolved_at != null && !(lastCustomer > state.resolved_at) ? 'resolved' : 'open'
  }
}

async function expectImported(s: Storage, dir: string, was: LegacyContents): Promise<void> {
  const { config, runtime } = was
  const repos = s.repos
  // Configuration: the same API token, instances with the same session ids and access tokens.
  expect(repos.account.get()).toEqual(config.account)
  expect(repos.account.get()!.api_token).toBe(config.account!.api_token)
  expect(repos.instances.all()).toEqual(config.instances)
  expect(repos.appSettings.smtp()).toEqual(config.appSettings.smtp)
  const onDisk = (await configFile(dir)) as { instances: Array<{ session_id: string; settings: { access_token: string } }> }
  expect(onDisk.instances.map((i) => [i.session_id, i.settings.access_token])).toEqual(config.instances.map((i) => [i.session_id, i.settings.access_token]))

  // Records.
  const ids = config.instances.map((i) => i._id)
  const all = async <T extends { _id: string }>(f: (id: string) => Promise<readonly T[]>) => byId((await Promise.all(ids.map(f))).flat())
  expect(await all((id) => repos.intents.ofInstance(id))).toEqual(byId(config.intents))
  expect(await all((id) => repos.surveySteps.ofInstance(id))).toEqual(byId(config.surveys))
  expect(await all((id) => repos.attachments.ofInstance(id))).toEqual(byId(config.attachments))
  expect(await all((id) => repos.contactGroups.ofInstance(id))).toEqual(byId(config.contactGroups))
  expect(await all((id) => repos.schedules.ofInstance(id))).toEqual(byId(config.schedules))
  expect(byId((await repos.contacts.page({}, 0, 10_000)).items)).toEqual(byId(config.contacts))
  expect(config.contacts.some((c) => c.labels.length > 0)).toBe(true)
  expect(byId(await repos.labels.all())).toEqual(byId(config.labels))
  expect(byId(await repos.quickReplies.all())).toEqual(byId(config.quickReplies))
  for (const run of runtime.surveyRuns) expect(await repos.surveyRuns.find(run._id)).toEqual(run)
  for (const p of runtime.chatPauses) expect(await repos.chatPauses.find(p.instance_id, p.chatId)).toEqual(p)
  for (const b of runtime.broadcasts) expect(await repos.broadcasts.find(b._id)).toEqual(b)
  for (const id of ids) {
    expect(await repos.outreachSends.since(id, 0)).toEqual(runtime.outreachSends.filter((x) => x.instance_id === id))
    expect(await repos.botActivity.ofInstance(id, 10_000)).toEqual(runtime.botActivity.filter((x) => x.instance_id === id))
  }
  const marks = await s.database.db.selectFrom('bot_reply_marks').selectAll().orderBy('at').execute()
  expect(marks.map((m) => [m.kind, m.instance_id, m.chat_id, m.at])).toEqual([
    ...windowEntries(runtime.bot.defaultMessageWindow).map((e) => ['default', ...e]),
    ...windowEntries(runtime.bot.awayMessageWindow).map((e) => ['away', ...e])
  ])
  expect(marks.length).toBeGreaterThan(0)

  // Every message, in its order; the conversations as 0.1's inbox showed them.
  let total = 0
  for (const [instanceId, entries] of was.messages) {
    const inFileOrder = await s.database.db.selectFrom('messages').select('id').where('instance_id', '=', instanceId).orderBy('seq').execute()
    expect(inFileOrder.map((r) => r.id)).toEqual(entries.map((m) => m.id))
    // 0.1's outbound entries name no sender: the log names them by their source (`sent_by`).
    const named = entries.map((m) => (m.fromMe ? { ...m, ...sentByOfSource(m.source) } : m))
    expect(await repos.messages.list(instanceId, { limit: 1_000_000 })).toEqual(named.sort((a, b) => a.timestamp - b.timestamp))
    total += entries.length
    const conversations = await repos.conversations.list([instanceId], {}, 10_000, Date.now())
    const chats = new Map<string, LoggedMessage[]>()
    for (const m of entries) chats.set(m.chatId, [...(chats.get(m.chatId) ?? []), m])
    expect(conversations.map((c) => c.chatId).sort()).toEqual([...chats.keys()].sort())
    for (const c of conversations) {
      const state = runtime.chatStates.find((x) => x.instance_id === instanceId && x.chatId === c.chatId)
      expect({ last: c.last.id, unread: c.unread, status: c.status }).toEqual(conversationAs01(chats.get(c.chatId)!, state))
      const pause = runtime.chatPauses.find((p) => p.instance_id === instanceId && p.chatId === c.chatId)
      expect(c.paused_until).toBe(pause ? pause.until : undefined)
    }
  }
  expect(total).toBe(54)

  // Webhook deliveries with their statuses.
  const deliveries = await s.database.db.selectFrom('webhook_deliveries').selectAll().orderBy('seq').execute()
  // Times are kept as epoch ms (docs/storage.md "Times"): the same instants 0.1 wrote.
  const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())
  expect(
    deliveries.map(({ seq: _s, payload, ...d }) => ({ ...d, payload: JSON.parse(payload) as unknown, created_at: iso(d.created_at), next_attempt_at: iso(d.next_attempt_at), delivered_at: iso(d.delivered_at) }))
  ).toEqual(was.deliveries)
  expect(deliveries.filter((d) => d.status === 'pending').length).toBe(was.deliveries.filter((d) => d.status === 'pending').length)

  // Channel credentials: creds and every Signal key as 0.1 held them (a linked phone stays linked).
  let keys = 0
  for (const [instanceId, state] of was.auth) {
    const creds = await s.database.db.selectFrom('auth_creds').selectAll().where('instance_id', '=', instanceId).executeTakeFirst()
    if (state.creds) {
      expect(JSON.parse(creds!.creds, BufferJSON.reviver)).toEqual(state.creds)
      const file = JSON.parse(await readFile(join(FIXTURE, 'stopped', 'sessions', instanceId, 'creds.json'), 'utf8'), BufferJSON.reviver) as { me: { id: string } }
      expect((JSON.parse(creds!.creds, BufferJSON.reviver) as { me: { id: string } }).me.id).toBe(file.me.id)
    } else expect(JSON.parse(creds!.creds)).toEqual(state.sandbox)
    const rows = await s.database.db.selectFrom('auth_keys').selectAll().where('instance_id', '=', instanceId).execute()
    expect(rows.length).toBe([...state.keys.values()].reduce((n, b) => n + b.size, 0))
    for (const r of rows) expect(plain(JSON.parse(r.value, BufferJSON.reviver))).toEqual(plain(state.keys.get(r.type)!.get(r.id)))
    keys += rows.length
    const kept = await s.database.db.selectFrom('wa_messages').selectAll().where('instance_id', '=', instanceId).orderBy('id').execute()
    expect(kept.map((m) => [m.id, m.at, m.own, Buffer.from(m.message).toString('base64')])).toEqual(
      [...state.waMessages].sort((a, b) => a.id.localeCompare(b.id)).map((m) => [m.id, m.at, m.own ? 1 : 0, m.message.toString('base64')])
    )
  }
  expect(keys).toBeGreaterThan(100)
}

describe.each(VARIANTS)('the %s fixture', (variant) => {
  it('imports completely, then moves the old files to migrated-<date>/ and leaves the new layout', async () => {
    const was = await legacyContents(join(FIXTURE, variant))
    const dir = await fixtureDir(variant)
    const s = await start(dir)
    await expectImported(s, dir, was)
    const steps = await s.database.db.selectFrom('legacy_import').selectAll().execute()
    const imported = steps.find((x) => x.step === 'imported')!
    expect(steps.some((x) => x.step === 'moved')).toBe(true)
    const migrated = `migrated-${new Date(imported.done_at).toISOString().slice(0, 10)}`
    const root = await readdir(dir)
    expect(root).toEqual(expect.arrayContaining(['config.json', 'chatapp.db', 'attachments', migrated]))
    expect(root.filter((n) => (LEGACY_FILES as readonly string[]).includes(n) || (LEGACY_DIRS as readonly string[]).includes(n))).toEqual([])
    expect((await readdir(join(dir, migrated))).sort()).toEqual((await readdir(join(FIXTURE, variant))).filter((n) => n !== 'attachments').sort())
    // The attachment's bytes stay where its record says.
    expect((await stat(join(dir, 'attachments', was.config.attachments[0]!._id))).size).toBe(was.config.attachments[0]!.size)
  })

  it('a second start does nothing', async () => {
    const dir = await fixtureDir(variant)
    const first = await start(dir)
    const before = { db: await dumpDatabase(first.database.db), config: await configFile(dir), root: (await readdir(dir)).sort() }
    await first.close()
    open.splice(0)
    const again = await start(dir)
    expect(await importLegacyDataDir(dir, again, pino({ level: 'silent' }))).toMatchObject({ outcome: 'none', counts: {} })
    expect(await dumpDatabase(again.database.db)).toEqual(before.db)
    expect(await configFile(dir)).toEqual(before.config)
    expect((await readdir(dir)).sort()).toEqual(before.root)
  })
})

describe('unreadable and damaged files', () => {
  it.each([
    ['chatapp.journal', (text: string) => text.replace(/\n/, '\n{"seq":10,"ops":[oops\n')],
    ['runtime.json', () => '{"version":1,"surveyRuns":'],
    ['sessions/6b06fd3e2d329972fede8248/keys.journal', (text: string) => '{"$seq":1,"pre-key":\n' + text],
    ['webhook-outbox.jsonl', (text: string) => '{"put":\n' + text]
  ])('an unreadable %s stops the start with its name; nothing is written and the old files stay; once mended the import runs', async (name, damage) => {
    const dir = await fixtureDir('running')
    const file = join(dir, name)
    const good = await readFile(file, 'utf8')
    await writeFile(file, damage(good))
    const err = await openStorage(dir).catch((e: unknown) => e)
    expect(err).toMatchObject({ name: 'DataFileError', file })
    expect((err as Error).message).toContain(file)
    const root = await readdir(dir)
    expect(root).toEqual(expect.arrayContaining(['chatapp.json', 'chatapp.journal', 'runtime.json', 'messages', 'sessions', 'webhook-outbox.jsonl']))
    expect(root).not.toContain('config.json')
    const db = await openDatabase(join(dir, 'chatapp.db'))
    expect(await db.db.selectFrom('legacy_import').selectAll().execute()).toEqual([])
    expect(await db.db.selectFrom('messages').selectAll().execute()).toEqual([])
    await db.close()
    await writeFile(file, good)
    const s = await start(dir)
    expect(s.repos.instances.all()).toHaveLength(2)
  })

  it('an unparsable message-log line is skipped and reported; the rest imports and the file is kept whole in migrated-<date>/', async () => {
    const dir = await fixtureDir('stopped')
    const was = await legacyContents(join(FIXTURE, 'stopped'))
    const log = join(dir, 'messages', '6b06fd3f068c1736b6de824b.jsonl')
    const lines = (await readFile(log, 'utf8')).split('\n')
    lines.splice(10, 0, '{"id":"broken","chatId":')
    await writeFile(log, lines.join('\n'))
    const { logger, lines: logged } = capturingLogger()
    const s = await start(dir, logger)
    const count = await s.database.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('instance_id', '=', '6b06fd3f068c1736b6de824b').executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(was.messages.get('6b06fd3f068c1736b6de824b')!.length)
    const warning = logged.find((l) => l.level === 40 && l.file === log)
    expect(warning?.msg).toContain('1 unreadable line(s) skipped')
    expect(warning?.lines).toEqual([{ line: 11, reason: expect.any(String) }])
    const migrated = (await readdir(dir)).find((n) => n.startsWith('migrated-'))!
    expect(await readFile(join(dir, migrated, 'messages', '6b06fd3f068c1736b6de824b.jsonl'), 'utf8')).toContain('{"id":"broken","chatId":')
  })

  it('an id logged twice is imported once, as the later entry with its patches, and reported', async () => {
    const dir = await fixtureDir('stopped')
    const log = join(dir, 'messages', '6b06fd3f068c1736b6de824b.jsonl')
    const first = JSON.parse((await readFile(log, 'utf8')).split('\n')[0]!) as LoggedMessage
    await appendFile(log, JSON.stringify({ ...first, text: 'logged again' }) + '\n' + JSON.stringify({ $patch: first.id, status: 'READ' }) + '\n')
    const { logger, lines } = capturingLogger()
    const s = await start(dir, logger)
    const rows = await s.database.db.selectFrom('messages').select(['id', 'text', 'status']).where('instance_id', '=', '6b06fd3f068c1736b6de824b').orderBy('seq').execute()
    expect(rows.filter((r) => r.id === first.id)).toEqual([{ id: first.id, text: 'logged again', status: 'READ' }])
    expect(rows.at(-1)!.id).toBe(first.id)
    expect(rows).toHaveLength(49)
    expect(lines.some((l) => l.level === 40 && String(l.msg).includes('1 entry logged again later'))).toBe(true)
  })

  it('a contact repeating a number and an attachment without its file: the first contact and the record imported, both reported', async () => {
    const dir = await fixtureDir('stopped')
    const doc = JSON.parse(await readFile(join(dir, 'chatapp.json'), 'utf8')) as { contacts: Array<{ _id: string; name: string }>; attachments: Array<{ _id: string }> }
    const twin = { ...doc.contacts[0]!, _id: 'ffffffffffffffffffffffff', name: 'Twin' }
    doc.contacts.push(twin)
    await writeFile(join(dir, 'chatapp.json'), JSON.stringify(doc))
    await rm(join(dir, 'attachments', doc.attachments[0]!._id))
    const { logger, lines } = capturingLogger()
    const s = await start(dir, logger)
    expect(await s.repos.contacts.find(doc.contacts[0]!._id)).toMatchObject({ name: doc.contacts[0]!.name })
    expect(await s.repos.contacts.find(twin._id)).toBeUndefined()
    expect(await s.repos.attachments.find(doc.attachments[0]!._id)).toMatchObject({ _id: doc.attachments[0]!._id })
    const warnings = lines.filter((l) => l.level === 40).map((l) => String(l.msg))
    expect(warnings.some((w) => w.includes(`contact ${twin._id}`))).toBe(true)
    expect(lines.find((l) => String(l.msg).includes(`contact ${twin._id}`))?.contact).toEqual(twin)
    expect(warnings.some((w) => w.includes(`attachment ${doc.attachments[0]!._id}`))).toBe(true)
  })

  it('0.1 files put back after a finished import are left alone, with a warning', async () => {
    const dir = await fixtureDir('stopped')
    const s = await start(dir)
    const before = await dumpDatabase(s.database.db)
    await appendFile(join(dir, 'chatapp.json'), await readFile(join(FIXTURE, 'stopped', 'chatapp.json'), 'utf8'))
    const { logger, lines } = capturingLogger()
    expect(await importLegacyDataDir(dir, s, logger)).toMatchObject({ outcome: 'ignored' })
    expect(lines.some((l) => l.level === 40)).toBe(true)
    expect(await dumpDatabase(s.database.db)).toEqual(before)
    expect(await readdir(dir)).toContain('chatapp.json')
  })
})
