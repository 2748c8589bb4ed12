import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { addTransactionCapability, makeCacheableSignalKeyStore, proto } from 'baileys'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AuthStore, AuthStoreError, CREDS_FILE, JOURNAL_FILE, KEYS_FILE } from '../../../src/main/channel/baileys/auth-store'
import { enospc, injectFileFaults } from '../../../src/main/store/durable-file'

const logger = pino({ level: 'silent' })
let root: string
let dir: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'chatapp-auth-'))
  dir = join(root, 'sessions', 'inst1')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const journalLines = async () => (await readFile(join(dir, JOURNAL_FILE), 'utf8')).split('\n').filter(Boolean)

describe('AuthStore', () => {
  it('starts with fresh creds in a new dir and restores them after saveCreds', async () => {
    const a = await AuthStore.open(dir, logger)
    expect(a.paired).toBe(false)
    expect(a.creds.noiseKey.private).toHaveLength(32)
    a.creds.me = { id: '15550001111:7@s.whatsapp.net', name: 'Shop', lid: '123:7@lid' }
    a.creds.account = { details: Buffer.from('d'), accountSignature: Buffer.alloc(64, 1) }
    a.creds.nextPreKeyId = 31
    await a.saveCreds()
    await a.close()

    const b = await AuthStore.open(dir, logger)
    expect(b.paired).toBe(true)
    expect(b.creds.me).toEqual({ id: '15550001111:7@s.whatsapp.net', name: 'Shop', lid: '123:7@lid' })
    expect(b.creds.nextPreKeyId).toBe(31)
    expect(Buffer.isBuffer(b.creds.noiseKey.private)).toBe(true)
    expect(Buffer.compare(b.creds.noiseKey.private, a.creds.noiseKey.private)).toBe(0)
    expect(Buffer.compare(Buffer.from(b.creds.account!.details!), Buffer.from('d'))).toBe(0)
    await b.close()
  })

  it('keys: get omits missing ids, null deletes, values survive a restart with their types', async () => {
    const a = await AuthStore.open(dir, logger)
    const session = new Uint8Array([1, 2, 3, 250])
    await a.keys.set({
      session: { '15551234567.0': session },
      'pre-key': { '1': { public: Buffer.alloc(32, 7), private: Buffer.alloc(32, 8) }, '2': { public: Buffer.alloc(32, 1), private: Buffer.alloc(32, 2) } },
      'app-state-sync-key': { AAAA: { keyData: Buffer.from('kd'), timestamp: 1700000000 } },
      'lid-mapping': { '15551234567': '201234567890123' }
    })
    await a.keys.set({ 'pre-key': { '1': null } })
    expect(await a.keys.get('pre-key', ['1', '2', '3'])).toEqual({ '2': { public: Buffer.alloc(32, 1), private: Buffer.alloc(32, 2) } })
    await a.close()

    const b = await AuthStore.open(dir, logger)
    const got = await b.keys.get('session', ['15551234567.0'])
    expect(Buffer.from(got['15551234567.0']!)).toEqual(Buffer.from(session))
    expect(Object.keys(await b.keys.get('pre-key', ['1', '2']))).toEqual(['2'])
    const sync = (await b.keys.get('app-state-sync-key', ['AAAA'])).AAAA!
    expect(sync).toBeInstanceOf(proto.Message.AppStateSyncKeyData)
    expect(Buffer.from(sync.keyData!).toString()).toBe('kd')
    expect(await b.keys.get('lid-mapping', ['15551234567'])).toEqual({ '15551234567': '201234567890123' })
    await b.close()
  })

  it('one keys.set() is one journal line; the journal is folded into the snapshot at open', async () => {
    const a = await AuthStore.open(dir, logger)
    await a.keys.set({ session: { a: new Uint8Array([1]) }, 'pre-key': { '9': null } })
    await a.keys.set({ 'sender-key': { g: new Uint8Array([2]) } })
    expect(await journalLines()).toHaveLength(2)
    await a.close()
    const b = await AuthStore.open(dir, logger)
    expect(await journalLines()).toHaveLength(0)
    expect(JSON.parse(await readFile(join(dir, KEYS_FILE), 'utf8'))).toEqual({
      $seq: 2,
      session: { a: { type: 'Buffer', data: 'AQ==' } },
      'sender-key': { g: { type: 'Buffer', data: 'Ag==' } }
    })
    await b.close()
  })

  it('the library transaction wrapper commits a transaction as one set() = one line', async () => {
    const a = await AuthStore.open(dir, logger)
    const keys = addTransactionCapability(makeCacheableSignalKeyStore(a.keys, logger), logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 })
    await keys.transaction(async () => {
      await keys.set({ session: { s1: new Uint8Array([1]) } })
      await keys.set({ 'pre-key': { '5': { public: Buffer.alloc(32), private: Buffer.alloc(32) } } })
      await keys.set({ 'lid-mapping': { '1555': '2012' } })
    }, 'test')
    expect(await journalLines()).toHaveLength(1)
    expect(a.count('session') + a.count('pre-key') + a.count('lid-mapping')).toBe(3)
    await a.close()
  })

  it('lines the snapshot already holds are not replayed after a crash between snapshot and journal truncation', async () => {
    const a = await AuthStore.open(dir, logger)
    await a.keys.set({ session: { k: new Uint8Array([1]) } })
    const stale = await readFile(join(dir, JOURNAL_FILE), 'utf8')
    await a.keys.set({ session: { k: new Uint8Array([2]) } })
    await a.keys.clear!()
    await a.keys.set({ session: { fresh: new Uint8Array([3]) } })
    await a.close()
    // The crash: the snapshot (after the clear) is on disk, the old journal lines are still there.
    await writeFile(join(dir, JOURNAL_FILE), stale + (await readFile(join(dir, JOURNAL_FILE), 'utf8')))
    const b = await AuthStore.open(dir, logger)
    // The cleared key stays cleared; the change after the snapshot is kept.
    expect(Object.keys(await b.keys.get('session', ['k', 'fresh']))).toEqual(['fresh'])
    await b.close()
  })

  it('an older journal line never overwrites the newer value a snapshot holds', async () => {
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, KEYS_FILE), JSON.stringify({ $seq: 2, session: { k: { type: 'Buffer', data: 'Ag==' } } }))
    await writeFile(join(dir, JOURNAL_FILE), [{ $seq: 1, session: { k: { type: 'Buffer', data: 'AQ==' } } }, { $seq: 3, session: { n: { type: 'Buffer', data: 'Aw==' } } }].map((l) => JSON.stringify(l) + '\n').join(''))
    const b = await AuthStore.open(dir, logger)
    const got = await b.keys.get('session', ['k', 'n'])
    expect(Buffer.from(got.k!)).toEqual(Buffer.from([2]))
    expect(Buffer.from(got.n!)).toEqual(Buffer.from([3]))
    // Numbering continues after the highest change seen.
    await b.keys.set({ session: { m: new Uint8Array([4]) } })
    expect(JSON.parse((await journalLines()).at(-1)!).$seq).toBe(4)
    await b.close()
  })

  it('a torn last journal line (crash mid-append) is skipped; the rest loads', async () => {
    const a = await AuthStore.open(dir, logger)
    await a.keys.set({ session: { ok: new Uint8Array([1]) } })
    await a.close()
    await appendFile(join(dir, JOURNAL_FILE), '{"session":{"torn":{"type":"Buf')
    const b = await AuthStore.open(dir, logger)
    expect(Object.keys(await b.keys.get('session', ['ok', 'torn']))).toEqual(['ok'])
    // Folded and truncated: the next append starts on a clean line.
    await b.keys.set({ session: { next: new Uint8Array([2]) } })
    await b.close()
    const c = await AuthStore.open(dir, logger)
    expect(Object.keys(await c.keys.get('session', ['ok', 'next']))).toEqual(['ok', 'next'])
    await c.close()
  })

  it('unreadable files raise AuthStoreError and are left untouched', async () => {
    const a = await AuthStore.open(dir, logger)
    await a.saveCreds()
    await a.keys.set({ session: { x: new Uint8Array([1]) } })
    await a.keys.set({ session: { y: new Uint8Array([1]) } })
    await a.close()
    const journal = join(dir, JOURNAL_FILE)
    const lines = await journalLines()
    await writeFile(journal, `garbage\n${lines[1]}\n`)
    await expect(AuthStore.open(dir, logger)).rejects.toBeInstanceOf(AuthStoreError)
    expect(await readFile(journal, 'utf8')).toContain('garbage')

    await writeFile(journal, '')
    await writeFile(join(dir, CREDS_FILE), '{"noiseKey": ')
    await expect(AuthStore.open(dir, logger)).rejects.toThrow(/unreadable.*log out/)
  })

  it('after close, late updates from a dying socket are dropped; destroy removes the dir for good', async () => {
    const a = await AuthStore.open(dir, logger)
    await a.saveCreds()
    await a.destroy()
    expect(existsSync(dir)).toBe(false)
    await a.saveCreds()
    await a.keys.set({ session: { late: new Uint8Array([1]) } })
    expect(existsSync(dir)).toBe(false)
  })

  it('a full disk while saving the creds is refused; the creds on disk stay whole and no temp file is left', async () => {
    const a = await AuthStore.open(dir, logger)
    a.creds.me = { id: '15550001111:7@s.whatsapp.net', name: 'Shop' }
    await a.saveCreds()
    const before = await readFile(join(dir, CREDS_FILE), 'utf8')
    const files = await readdir(dir)
    a.creds.me = { id: '15550002222:7@s.whatsapp.net', name: 'Other' }
    injectFileFaults({ beforeWrite: (file) => { throw enospc(file) } })
    try {
      await expect(a.saveCreds()).rejects.toMatchObject({ code: 'ENOSPC' })
    } finally {
      injectFileFaults(null)
    }
    expect(await readFile(join(dir, CREDS_FILE), 'utf8')).toBe(before)
    expect(await readdir(dir)).toEqual(files)
    await a.saveCreds()
    await a.close()
    const b = await AuthStore.open(dir, logger)
    expect(b.creds.me?.id).toBe('15550002222:7@s.whatsapp.net')
    await b.close()
  })

  it('writes are serialised: the last creds written win', async () => {
    const a = await AuthStore.open(dir, logger)
    const writes: Promise<void>[] = []
    for (let i = 0; i < 20; i++) {
      a.creds.nextPreKeyId = i
      writes.push(a.saveCreds())
    }
    await Promise.all(writes)
    await a.close()
    const b = await AuthStore.open(dir, logger)
    expect(b.creds.nextPreKeyId).toBe(19)
    // No key was written: no snapshot or journal, and no temp file left behind.
    expect(await readdir(dir)).toEqual([CREDS_FILE])
    await b.close()
  })
})
