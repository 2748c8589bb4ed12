/**
 * `npm run db:copy` (src/main/store/copy, src/main/cli/db-copy-command.ts; docs/storage.md "Moving a desk: `npm run db:copy`"), with real
 * parts only: a desk made by the app (a core on a SQLite data dir, a sandbox instance, messages with
 * accents, and the other tables written through the app's own repositories) is copied to a real
 * PostgreSQL database, a core started on that database lists the same instances and messages and finds
 * a message by search, a new message gets a new number there (the identity sequences moved), and the
 * desk goes back to a fresh data dir through the command, where a core lists the same again. Then the
 * refusals and failures: a target holding a desk, a source in use by a running core, a source from a
 * newer release, and a row the target refuses mid-copy: each leaves the target as it was.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pgClient from 'pg'
import { DEFAULT_ASSISTANT } from '../../../src/shared/schemas/assistant'
import { afterEach, describe, expect, it } from 'vitest'
import { internalsOf } from '../../../src/main/core'
import { enospc, injectConfigWriteFault } from '../../../src/main/store/config/durable-json-file'
import { openDatabase, openPostgresDatabase, NewerDatabaseError } from '../../../src/main/store/db/database'
import { CONFIG_TABLES, COPIED_TABLES, copyDesk, CopyRefusedError, type CopyEndpoint } from '../../../src/main/store/copy'
import { runDbCopyCommand } from '../../../src/main/cli/db-copy-command'
import type { Repositories } from '../../../src/main/store/repos'
import { makeHarness, type Harness } from '../../helpers/harness'
import { createTestDatabase, dropTestDatabase } from '../../helpers/postgres'
import { tempStorage } from '../../helpers/temp-storage'

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function database(): Promise<string> {
  const url = await createTestDatabase()
  cleanups.push(() => dropTestDatabase(url))
  return url
}

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-copy-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const pg = (url: string): CopyEndpoint => ({ kind: 'postgres', url })
const dir = (d: string): CopyEndpoint => ({ kind: 'dir', dir: d })

/** Rows of every copied table, and whether a configuration document is there: what "as it was" compares. */
async function snapshot(end: CopyEndpoint): Promise<Record<string, number>> {
  const handle = end.kind === 'postgres' ? await openPostgresDatabase(end.url) : await openDatabase(join(end.dir, 'chatapp.db'))
  try {
    const db = handle.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>
    const out: Record<string, number> = {}
    for (const t of [...COPIED_TABLES.map((c) => c.name), ...CONFIG_TABLES]) {
      const r = await db.selectFrom(t).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()
      out[t] = Number(r.n)
    }
    return out
  } finally {
    await handle.close()
  }
}

/** Writes a row of (almost) every table through the repositories, as the app's services do. */
async function seedRepositories(repos: Repositories, instanceId: string): Promise<void> {
  const NOW = '2026-11-27T00:00:00.000Z'
  await repos.contacts.putMany([
    { _id: 'c1', client_id: 'u', instance_id: instanceId, name: 'José Müller', number: '5511987650001', group_id: null, channel: 'whatsapp', labels: ['VIP', 'late'], notes: 'prefers Crème brûlée', opted_out: false, last_seen_at: null, createdAt: NOW, updatedAt: NOW, __v: 0 }
  ])
  await repos.staff.create({ id: 's1', name: 'Zoë Agent', login: 'zoe', role: 'agent', instanceIds: [instanceId], createdAt: NOW, updatedAt: NOW })
  await repos.invites.put('s1', 'invitehash', Date.parse(NOW) + 86_400_000)
  await repos.sessions.create('sessionhash', { staffId: 's1', csrfToken: 'csrf', expiresAt: Date.parse(NOW) + 3_600_000, createdAt: Date.parse(NOW), ip: '127.0.0.1' })
  await repos.apiKeys.create({ id: 'k1', name: 'script', scopes: ['messages:send'], instanceIds: null, createdAt: NOW }, 'keyhash')
  await repos.audit.add({ at: Date.parse(NOW), kind: 'login', actor: 'staff:s1', ip: '127.0.0.1', detail: { ok: true } })
  await repos.leases.heartbeat({ id: 'old-worker', url: 'http://127.0.0.1:1', startedAt: 1_000, maxInstances: null }, 2_000)
  await repos.leases.claim(instanceId, 'old-worker', 2_000, 15_000)
  const begun = await repos.idempotency.begin({ key: 'k-1', caller: 'owner', route: `messages.sendText ${instanceId}` }, 'hash', 3_000, 0, { worker: 'old-worker', token: 1 })
  expect(begun).toEqual({ state: 'new' })
  await repos.idempotency.finish({ key: 'k-1', caller: 'owner', route: `messages.sendText ${instanceId}` }, 200, '{"ok":true}')
  await repos.webhookDeliveries.add([
    {
      id: 'd1',
      instance_id: instanceId,
      event: 'onMessage',
      url: 'https://hooks.example/in',
      payload: { event: 'onMessage', instance_id: instanceId, session_id: 's', data: { text: 'olá' }, timestamp: NOW },
      status: 'pending',
      attempts: 0,
      last_error: null,
      last_status: null,
      next_attempt_at: NOW,
      created_at: NOW,
      delivered_at: null
    }
  ])
  await repos.channelAuth.applyKeys(instanceId, [{ type: 'pre-key', id: '1', value: '{"k":1}' }])
  await repos.waMessages.put(instanceId, { id: 'W1', at: 5_000, own: true, message: new Uint8Array([0, 1, 2, 255]) })
  // The assistant's: knowledge with a chunk's vector (a blob), settings with the key, an answer, a day's usage.
  await repos.knowledge.create({ _id: 'kn1', instance_id: instanceId, title: 'Horário', content: 'Domingo às 18:00.', source: 'manual', file_name: null, chunks: 0, createdAt: NOW, updatedAt: NOW }, [{ position: 0, title: 'Horário', body: 'Domingo às 18:00.' }])
  const [chunk] = await repos.knowledge.withoutEmbedding(instanceId, 'emb', 1)
  await repos.knowledge.setEmbeddings('emb', [{ seq: chunk!.seq, vector: Float32Array.from([0.25, -1.5, 3]) }])
  await repos.assistant.save(instanceId, { ...DEFAULT_ASSISTANT, model: 'm' }, { set: 'sk-copy' }, NOW)
  await repos.assistant.addReply(instanceId, { chatId: '15550001111@s.whatsapp.net', question: 'domingo?', reply: 'Às 18:00.', outcome: 'answered', model: 'm', prompt_tokens: 5, completion_tokens: 2, ms: 9, sources: [{ id: 'kn1', title: 'Horário' }], message_ids: ['M1'] }, 6_000)
  await repos.assistant.addUsage(instanceId, '2026-11-27', { prompt_tokens: 5, completion_tokens: 2, replies: 1 })
}

/** A desk made by the app on a SQLite data dir: one connected sandbox instance, messages, every kind of record. */
async function sqliteDesk(): Promise<{ dir: string; instanceId: string; texts: string[] }> {
  const d = await folder()
  const h = await makeHarness({}, d)
  try {
    const a = await h.connectedInstance()
    const texts = ['Crème brûlée à São Paulo', 'Ünïcödé façade naïve', 'plain hello']
    let at = Date.parse('2026-11-20T10:00:00.000Z')
    for (const message of texts) {
      at += 1000
      const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${a.qs}`, payload: { chatId: '15550001111', message, pushName: 'Ana', timestamp: Math.floor(at / 1000) } })
      expect(res.statusCode, res.body).toBe(200)
    }
    await seedRepositories(internalsOf(h.core).storage.repos, a.inst._id)
    // The log as the app shows it: the inbound messages and the bot's default replies.
    const shown = (await visible(h)).texts
    expect(shown).toEqual(expect.arrayContaining(texts))
    return { dir: d, instanceId: a.inst._id, texts: shown }
  } finally {
    await h.close(true)
  }
}

/** The instances and the message log's texts a core on `h` answers. */
async function visible(h: Harness): Promise<{ instances: string[]; texts: string[] }> {
  const list = await h.call({ method: 'GET', url: '/chatapp' })
  expect(list.statusCode, list.body).toBe(200)
  const instances = (list.json.data as Array<{ _id: string; session_id: string; settings: { access_token: string } }>).map((i) => i._id).sort()
  const inst = (list.json.data as Array<{ session_id: string; settings: { access_token: string } }>)[0]!
  const log = await h.call({ method: 'GET', url: `/message-log?type=all&limit=100&session_id=${inst.session_id}&access_token=${inst.settings.access_token}` })
  expect(log.statusCode, log.body).toBe(200)
  return { instances, texts: (log.json.data as Array<{ text: string }>).map((m) => m.text) }
}

describe('db:copy', () => {
  it('moves a desk from SQLite to PostgreSQL and back, checked, and the app works on each copy', async () => {
    const desk = await sqliteDesk()
    const before = await snapshot(dir(desk.dir))
    const url = await database()

    const report = await copyDesk(dir(desk.dir), pg(url))
    expect(report.ok).toBe(true)
    const byTable = Object.fromEntries(report.tables.map((t) => [t.table, t]))
    for (const t of report.tables) expect(t.targetRows, t.table).toBe(t.sourceRows)
    for (const t of report.tables) expect(t.targetChecksum, t.table).toBe(t.sourceChecksum)
    // The seeded tables were not empty (a check of empty tables would prove little).
    for (const t of ['messages', 'conversations', 'contacts', 'contact_labels', 'staff', 'staff_invites', 'auth_sessions', 'api_keys', 'audit_log', 'workers', 'instance_leases', 'idempotency_keys', 'webhook_deliveries', 'auth_creds', 'auth_keys', 'wa_messages', 'knowledge', 'knowledge_chunks', 'knowledge_revisions', 'assistant_settings', 'assistant_replies', 'assistant_usage']) {
      expect(byTable[t]!.sourceRows, t).toBeGreaterThan(0)
      expect(byTable[t]!.sourceRows, t).toBe(before[t])
    }
    expect(byTable.config).toMatchObject({ sourceRows: 1, targetRows: 1, ok: true })
    expect(report.rows).toBe(Object.entries(before).filter(([t]) => !(CONFIG_TABLES as readonly string[]).includes(t)).reduce((n, [, c]) => n + c, 0))
    // The source was left as it was.
    expect(await snapshot(dir(desk.dir))).toEqual(before)

    // A core on the PostgreSQL copy: same instances and messages, search (accents folded) finds one,
    // and a new message gets a number after the copied ones (the identity sequence was moved).
    const pgDir = await folder()
    let h = await makeHarness({ databaseUrl: url }, pgDir)
    let onPostgres: { instances: string[]; texts: string[] }
    let afterMove: string[] = []
    try {
      onPostgres = await visible(h)
      expect(onPostgres.instances).toEqual([desk.instanceId])
      expect([...onPostgres.texts].sort()).toEqual([...desk.texts].sort())
      const repos = internalsOf(h.core).storage.repos
      expect((await repos.messages.search(desk.instanceId, { q: 'creme brulee' })).map((m) => m.text)).toEqual(['Crème brûlée à São Paulo'])
      expect((await repos.messages.search(desk.instanceId, { q: 'FACADE' })).map((m) => m.text)).toEqual(['Ünïcödé façade naïve'])
      expect((await repos.contacts.page({ q: 'creme' }, 0, 10)).items.map((c) => c.name)).toEqual(['José Müller'])
      const inst = internalsOf(h.core).storage.config.data.instances[0]!
      const added = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?session_id=${inst.session_id}&access_token=${inst.settings.access_token}`, payload: { chatId: '15550002222', message: 'after the move', pushName: 'Bo' } })
      expect(added.statusCode, added.body).toBe(200)
      await repos.audit.add({ at: Date.now(), kind: 'login', actor: 'owner', ip: null, detail: null })
      afterMove = (await visible(h)).texts
    } finally {
      await h.close(true)
    }

    // Back to a fresh data dir through the command; a core there lists the same, the new message too.
    const back = join(await folder(), 'desk')
    const out: string[] = []
    const err: string[] = []
    const code = await runDbCopyCommand(['--from', url, '--to', back], { out: (l) => out.push(l), err: (l) => err.push(l) })
    expect(code, err.join('\n')).toBe(0)
    expect(out.join('\n')).toMatch(/^messages\s+\d+\s+[0-9a-f]{16}\s+ok$/m)
    expect(out.join('\n')).toMatch(/^config\s+1\s+[0-9a-f]{16}\s+ok$/m)
    expect(out.join('\n')).toContain(`rsync -a <the data dir of a worker of the source>/attachments`)
    expect(JSON.parse(await readFile(join(back, 'config.json'), 'utf8')).instances.map((i: { _id: string }) => i._id)).toEqual([desk.instanceId])
    h = await makeHarness({}, back)
    try {
      const onSqlite = await visible(h)
      expect(onSqlite.instances).toEqual([desk.instanceId])
      expect([...onSqlite.texts].sort()).toEqual([...afterMove].sort())
      expect(onSqlite.texts).toContain('after the move')
      expect((await internalsOf(h.core).storage.repos.messages.search(desk.instanceId, { q: 'sao paulo' })).map((m) => m.text)).toEqual(['Crème brûlée à São Paulo'])
    } finally {
      await h.close(true)
    }
  }, 120_000)

  it('refuses a target that holds a desk, and changes nothing there', async () => {
    const t = await tempStorage('sqlite')
    cleanups.push(() => t.close())
    await t.storage.repos.messages.append('i1', { id: 'M1', chatId: '1@s.whatsapp.net', fromMe: false, pushName: 'A', type: 'text', text: 'one', timestamp: 1, status: 'RECEIVED', source: 'inbound' })
    await t.storage.config.update((d) => void (d.account = { api_token: 'tok', created_at: '2026-01-01T00:00:00.000Z' } as never))
    await t.storage.close()
    const url = await database()
    expect((await copyDesk(dir(t.dir), pg(url))).ok).toBe(true)
    const filled = await snapshot(pg(url))

    const again = copyDesk(dir(t.dir), pg(url))
    await expect(again).rejects.toBeInstanceOf(CopyRefusedError)
    await expect(again).rejects.toMatchObject({ reason: 'target-not-empty', message: expect.stringContaining('table messages has rows') })
    expect(await snapshot(pg(url))).toEqual(filled)

    // A data dir with a config.json is a desk too (even with an empty database).
    const other = await folder()
    await writeFile(join(other, 'config.json'), '{"keep": "me"}')
    await expect(copyDesk(pg(url), dir(other))).rejects.toMatchObject({ reason: 'target-not-empty' })
    expect(await readFile(join(other, 'config.json'), 'utf8')).toBe('{"keep": "me"}')
    expect(existsSync(join(other, 'chatapp.db'))).toBe(false)

    // The command: exit code 1 and the reason.
    const err: string[] = []
    expect(await runDbCopyCommand(['--from', t.dir, '--to', url], { out: () => {}, err: (l) => err.push(l) })).toBe(1)
    expect(err.join('\n')).toMatch(/^Refused: .*already holds a desk/)
  }, 60_000)

  it('rolls a copy back when the target refuses a row mid-copy: the target is as it was', async () => {
    const t = await tempStorage('sqlite')
    cleanups.push(() => t.close())
    const repos = t.storage.repos
    await repos.messages.append('i1', { id: 'M1', chatId: '1@s.whatsapp.net', fromMe: false, pushName: 'A', type: 'text', text: 'olá', timestamp: 1, status: 'RECEIVED', source: 'inbound' })
    await repos.staff.create({ id: 's1', name: 'S', login: 's', role: 'agent', instanceIds: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' })
    // SQLite keeps text in an integer column; PostgreSQL's bigint refuses it. The table is copied last,
    // so every other table was inserted before the failure.
    await t.storage.database.write((trx) =>
      trx.insertInto('idempotency_keys').values({ key: 'k', caller: 'owner', route: 'r', request_hash: 'h', status: 200, body: '{}', created_at: 'not a number' as unknown as number }).execute()
    )
    await t.storage.close()
    expect(COPIED_TABLES.at(-1)!.name).toBe('idempotency_keys')

    const url = await database()
    const empty = await snapshot(pg(url))
    await expect(copyDesk(dir(t.dir), pg(url))).rejects.toThrow(/bigint/)
    expect(await snapshot(pg(url))).toEqual(empty)
    expect(Object.values(empty).every((n) => n === 0)).toBe(true)

    // A connection lost mid-copy (the source's, after its first table), into a data dir the copy
    // makes: the folder is removed again.
    const p = await tempStorage('postgres')
    cleanups.push(() => p.close())
    await p.storage.repos.messages.append('i1', { id: 'M1', chatId: '1@s.whatsapp.net', fromMe: false, pushName: 'A', type: 'text', text: 'olá', timestamp: 1, status: 'RECEIVED', source: 'inbound' })
    await p.storage.close()
    const target = join(await folder(), 'new-desk')
    const cut = async (table: string): Promise<void> => {
      if (table !== 'messages') return
      const admin = new pgClient.Client({ connectionString: p.databaseUrl })
      await admin.connect()
      try {
        const r = await admin.query('SELECT pg_terminate_backend(pid) AS gone FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
        expect(r.rows.length).toBeGreaterThan(0)
      } finally {
        await admin.end()
      }
    }
    await expect(copyDesk(pg(p.databaseUrl!), dir(target), { onTable: cut })).rejects.toThrow(/connection|terminat/)
    expect(existsSync(target)).toBe(false)

    // config.json that cannot be written (a full disk, the configuration store's own seam) rolls the
    // rows back too: into a folder that had an empty database already, that database stays empty.
    const full = await tempStorage('postgres')
    cleanups.push(() => full.close())
    await full.storage.repos.messages.append('i1', { id: 'M1', chatId: '1@s.whatsapp.net', fromMe: false, pushName: 'A', type: 'text', text: 'olá', timestamp: 1, status: 'RECEIVED', source: 'inbound' })
    await full.storage.close()
    const emptyDesk = await folder()
    await (await openDatabase(join(emptyDesk, 'chatapp.db'))).close()
    injectConfigWriteFault((file) => enospc(file))
    try {
      await expect(copyDesk(pg(full.databaseUrl!), dir(emptyDesk))).rejects.toThrow(/ENOSPC/)
    } finally {
      injectConfigWriteFault(null)
    }
    expect(Object.values(await snapshot(dir(emptyDesk))).every((n) => n === 0)).toBe(true)
    expect(existsSync(join(emptyDesk, 'config.json'))).toBe(false)
  }, 60_000)

  it('rolls back a copy whose checksums differ: a value the target stores differently is caught', async () => {
    const t = await tempStorage('sqlite')
    cleanups.push(() => t.close())
    await t.storage.repos.messages.append('i1', { id: 'M1', chatId: '1@s.whatsapp.net', fromMe: false, pushName: 'A', type: 'text', text: 'olá', timestamp: 1, status: 'RECEIVED', source: 'inbound' })
    // SQLite keeps bytes in a text column as a blob; PostgreSQL's text column takes the same bytes as
    // the text "hi": no error, a different value, only the checksum sees it.
    await t.storage.database.write((trx) => trx.updateTable('messages').set({ details: new Uint8Array([104, 105]) as unknown as string }).execute())
    await t.storage.close()
    const url = await database()
    const out: string[] = []
    const err: string[] = []
    expect(await runDbCopyCommand(['--from', t.dir, '--to', url], { out: (l) => out.push(l), err: (l) => err.push(l) })).toBe(1)
    expect(out.join('\n')).toMatch(/^messages\s+1\s+[0-9a-f]{16} → [0-9a-f]{16}\s+MISMATCH$/m)
    expect(out.join('\n')).toMatch(/^contacts\s+0\s+[0-9a-f]{16}\s+ok$/m)
    expect(err.join('\n')).toMatch(/did not match its source in messages; it was rolled back/)
    expect(Object.values(await snapshot(pg(url))).every((n) => n === 0)).toBe(true)
  }, 60_000)

  it('refuses a source in use by a running app, and one from a newer release', async () => {
    const d = await folder()
    const h = await makeHarness({}, d)
    const url = await database()
    try {
      const err: string[] = []
      const code = await runDbCopyCommand(['--from', d, '--to', url], { out: () => {}, err: (l) => err.push(l) })
      expect(code).toBe(2)
      expect(err.join('\n')).toMatch(/Chatapp is running on the data dir .* Stop it first/)
    } finally {
      await h.close(true)
    }
    const handle = await openDatabase(join(d, 'chatapp.db'))
    await (handle.db as unknown as import('kysely').Kysely<{ kysely_migration: { name: string; timestamp: string } }>)
      .insertInto('kysely_migration')
      .values({ name: '9999-from-the-future', timestamp: new Date().toISOString() })
      .execute()
    await handle.close()
    await expect(copyDesk(dir(d), pg(url))).rejects.toBeInstanceOf(NewerDatabaseError)
    expect(Object.values(await snapshot(pg(url))).every((n) => n === 0)).toBe(true)
  }, 60_000)

  it('answers wrong usage with exit code 2 and the usage line, before touching anything', async () => {
    const run = async (...argv: string[]) => {
      const err: string[] = []
      const out: string[] = []
      const code = await runDbCopyCommand(argv, { out: (l) => out.push(l), err: (l) => err.push(l) })
      return { code, err: err.join('\n'), out: out.join('\n') }
    }
    const d = await folder()
    expect(await run('--from', d)).toMatchObject({ code: 2, err: expect.stringContaining('Both --from and --to are required') })
    expect(await run('--from', 'mysql://h/db', '--to', d)).toMatchObject({ code: 2, err: expect.stringContaining('mysql:// is not a database this copies') })
    expect(await run('--from', d, '--to', d, '--force')).toMatchObject({ code: 2, err: expect.stringContaining("Unknown option '--force'") })
    expect(await run('--help')).toMatchObject({ code: 0, out: expect.stringContaining('Attachment and media files are not in the database') })
    expect(await run('--from', d, '--to', d)).toMatchObject({ code: 1, err: expect.stringContaining('are the same') })
    expect(await run('--from', join(d, 'nothing'), '--to', join(d, 'new'))).toMatchObject({ code: 1, err: expect.stringContaining('no chatapp.db') })
    expect(existsSync(join(d, 'new'))).toBe(false)
  })

  it('refuses a PostgreSQL source while a worker is live on it', async () => {
    const url = await database()
    const t = await folder()
    const h = await makeHarness({ databaseUrl: url }, t)
    try {
      await h.connectedInstance()
      await expect(copyDesk(pg(url), dir(join(t, 'copy')))).rejects.toMatchObject({ reason: 'source-in-use', message: expect.stringMatching(/Workers are running/) })
      expect(existsSync(join(t, 'copy'))).toBe(false)
    } finally {
      await h.close(true)
    }
  }, 60_000)
})
