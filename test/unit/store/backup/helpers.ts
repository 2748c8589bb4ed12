/**
 * Data dirs for the backup tests: real storage (openStorage: config.json, chatapp.db, attachments/)
 * with records written through the repositories, and checksums of a data dir's files to prove that a
 * refused restore changed nothing.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { openStorage, type Storage } from '../../../../src/main/store/storage'
import type { LoggedMessage } from '../../../../src/shared/schemas/records'

export function tempDir(prefix = 'chatapp-backup-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export const INSTANCE = 'inst0000000000000000000a'

export function message(i: number, text = `message ${i}`): LoggedMessage {
  return { id: `MSG${String(i).padStart(6, '0')}`, chatId: `4912345${String(i % 7).padStart(4, '0')}@s.whatsapp.net`, fromMe: i % 2 === 0, pushName: 'Ana', type: 'text', text, timestamp: 1_700_000_000_000 + i * 1000, status: 'RECEIVED', source: 'inbound' }
}

/** A data dir with an account, SMTP settings, messages, a contact, credentials and two attachments. */
export async function seedDataDir(dir: string, tag = 'a'): Promise<Storage> {
  const storage = await openStorage(dir)
  const { repos } = storage
  await repos.account.set({ _id: `acct-${tag}`, api_token: `token-${tag}-0123456789abcdef`, createdAt: '2025-01-01T00:00:00.000Z' })
  await repos.appSettings.setSmtp({ host: `smtp-${tag}.example`, port: 587, secure: false, from: `desk-${tag}@example.com` })
  await repos.messages.appendMany(INSTANCE, Array.from({ length: 50 }, (_, i) => message(i, `${tag} message ${i}`)))
  await storage.database.write((trx) =>
    trx.insertInto('auth_creds').values({ instance_id: INSTANCE, creds: JSON.stringify({ me: { id: `4900000${tag}@s.whatsapp.net` }, noiseKey: tag.repeat(32) }), updated_at: Date.parse('2025-01-01T00:00:00.000Z') }).execute()
  )
  for (const [id, bytes] of [
    [`att-${tag}-1`, Buffer.from(`first attachment of ${tag}`)],
    [`att-${tag}-2`, Buffer.alloc(300_000, tag)]
  ] as const) {
    await writeFile(join(storage.paths.attachments, id), bytes)
    await repos.attachments.put({
      _id: id,
      client_id: `user-${tag}`,
      instance_id: INSTANCE,
      filename: `${id}.bin`,
      mimetype: 'application/octet-stream',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      createdAt: '2025-01-01T00:00:00.000Z'
    })
  }
  return storage
}

/** SHA-256 of every file under `dir` (relative path → hex), skipping the folders named. */
export async function checksums(dir: string, skip: readonly string[] = ['tmp', 'backups']): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue
    const rel = relative(dir, join(e.parentPath, e.name))
    if (skip.some((s) => rel === s || rel.startsWith(s + '/'))) continue
    out[rel] = createHash('sha256').update(await readFile(join(dir, rel))).digest('hex')
  }
  return out
}
