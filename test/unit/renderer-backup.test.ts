/**
 * Settings → Backup's logic (src/renderer/src/tabs/settings/backup-transfer.ts) against the real core:
 * a sandbox core on a temp data dir (real SQLite, real backups/ folder) behind the contract's handlers,
 * called as the renderer calls them. A kept backup downloads in parts to the same bytes as the file; a
 * file uploads in parts and restores; bad, newer and busy restores are refused with the titles the
 * section shows.
 */
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { create as createTar, extract as extractTar } from 'tar'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startCore, type Core } from '../../src/main/core'
import { createHandlers, dispatch } from '../../src/main/ui-contract/handlers'
import { ContractError, type ContractHandlers } from '../../src/shared/contract'
import {
  base64ToBytes,
  BACKUP_PART_BYTES,
  bytesToBase64,
  downloadBackup,
  failureTitle,
  restoreErrorTitle,
  uploadBackup,
  type Call
} from '../../src/renderer/src/tabs/settings/backup-transfer'

let core: Core
let dir: string
let h: ContractHandlers
/** The contract as the renderer's store calls it: validated input, a ContractError on a refusal. */
const call: Call = async (method, input) => {
  const answer = await dispatch(h, method, input, () => {})
  if (!answer.ok) throw new ContractError(answer.error)
  return answer.data as never
}
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const instanceNames = async () => (await call('instances.list', {})).map((i) => i.settings.bot_name).sort()
/** The list names a backup by its file name's time, the manifest by the clock a moment later. */
const expectSameBackup = (restoredAt: string, listedAt: string) => expect(Math.abs(Date.parse(restoredAt) - Date.parse(listedAt))).toBeLessThan(1000)
/** The error a promise rejects with (fails the test when it resolves). */
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable('expected a refusal'),
    (err: unknown) => err
  )

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-backup-ui-'))
  core = await startCore({ dataDir: join(dir, 'data'), defaultChannel: 'sandbox' })
  h = createHandlers(core, { baseUrl: () => 'http://127.0.0.1:9', mode: 'desktop', defaultChannel: 'sandbox' })
})
afterEach(async () => {
  await core.close()
  await rm(dir, { recursive: true, force: true })
})

describe('base64 of the parts', () => {
  it('round-trips every byte value, past the slice String.fromCharCode takes at once', () => {
    const bytes = new Uint8Array(0x8000 * 2 + 77).map((_, i) => (i * 31) % 256)
    const b64 = bytesToBase64(bytes)
    expect(b64).toBe(Buffer.from(bytes).toString('base64'))
    expect(base64ToBytes(b64)).toEqual(bytes)
    expect(bytesToBase64(new Uint8Array())).toBe('')
  })
})

describe('Settings → Backup over the real core', { timeout: 60_000 }, () => {
  it('saves the daily switch and how many are kept, and lists a backup made now', async () => {
    const first = await call('backups.status', {})
    expect(first.backups).toEqual([])
    const saved = await call('backups.settings', { daily: false, keep: 3 })
    expect(saved).toMatchObject({ daily: false, keep: 3, next_at: null })
    const made = await call('backups.now', {})
    const status = await call('backups.status', {})
    expect(status.backups).toEqual([made])
    expect(made.size).toBeGreaterThan(0)
    // Out of range: the field the form marks.
    const err = await refusal(call('backups.settings', { keep: 0 }))
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field: 'keep' })] })
  })

  it('downloads a kept backup in parts to the very bytes of the file, with progress after each part', async () => {
    await call('instances.create', { channel: 'sandbox', name: 'Trattoria' })
    const made = await call('backups.now', {})
    const onDisk = await readFile(join((await call('backups.status', {})).folder, made.name))
    const seen: Array<[number, number]> = []
    // Parts far smaller than the 4 MiB the section asks for, so a small backup still takes several.
    const part = Math.ceil(onDisk.length / 5)
    const blob = await downloadBackup(call, made.name, (done, total) => seen.push([done, total]), part)
    expect(blob.type).toBe('application/gzip')
    expect(sha256(new Uint8Array(await blob.arrayBuffer()))).toBe(sha256(onDisk))
    expect(seen).toHaveLength(5)
    expect(seen.at(-1)).toEqual([onDisk.length, onDisk.length])
    expect(seen.every(([, total]) => total === onDisk.length)).toBe(true)
    // The section's default part is the largest the contract accepts.
    await expect(call('backups.read', { name: made.name, offset: 0, length: BACKUP_PART_BYTES + 1 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
  })

  it('says a backup dropped since the list was read is no longer there', async () => {
    const err = await refusal(downloadBackup(call, 'chatapp-desk-2020-01-01T00-00-00.000Z.tar.gz'))
    expect(err).toMatchObject({ code: 'NOT_FOUND' })
    expect(failureTitle('Not downloaded', err)).toBe('Not downloaded: the backup is no longer there')
    const gone = await refusal(call('backups.restoreStored', { name: 'chatapp-desk-2020-01-01T00-00-00.000Z.tar.gz' }))
    expect(restoreErrorTitle(gone)).toBe('Not restored: the backup is no longer there')
  })

  it('restores a kept backup: what came after it is gone, and the current data is kept aside', async () => {
    await call('instances.create', { channel: 'sandbox', name: 'Before' })
    const made = await call('backups.now', {})
    await call('instances.create', { channel: 'sandbox', name: 'After' })
    expect(await instanceNames()).toEqual(['After', 'Before'])
    const view = await call('backups.restoreStored', { name: made.name })
    expectSameBackup(view.restored.created_at, made.created_at)
    expect(view.replaced_dir).toMatch(/replaced-/)
    expect(await instanceNames()).toEqual(['Before'])
    // The kept backups are not part of a backup, and stay where they were.
    expect((await call('backups.status', {})).backups.map((b) => b.name)).toContain(made.name)
  })

  it('uploads a file in parts and restores it', async () => {
    await call('instances.create', { channel: 'sandbox', name: 'Kept' })
    const made = await call('backups.now', {})
    const file = new Blob([await downloadBackup(call, made.name)])
    await call('instances.create', { channel: 'sandbox', name: 'Later' })
    const seen: number[] = []
    const uploadId = await uploadBackup(call, file, (done) => seen.push(done), Math.ceil(file.size / 3))
    expect(uploadId).toMatch(/^[a-f0-9]{24}$/)
    expect(seen).toEqual([Math.ceil(file.size / 3), 2 * Math.ceil(file.size / 3), file.size])
    const view = await call('backups.restoreUpload', { uploadId })
    expectSameBackup(view.restored.created_at, made.created_at)
    expect(await instanceNames()).toEqual(['Kept'])
    // An upload is used up by its restore.
    await expect(call('backups.restoreUpload', { uploadId })).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  it('refuses a file that is not a backup, or a truncated one, and changes nothing (400)', async () => {
    await call('instances.create', { channel: 'sandbox', name: 'Stays' })
    const made = await call('backups.now', {})
    const whole = new Uint8Array(await (await downloadBackup(call, made.name)).arrayBuffer())
    for (const bad of [new Blob(['name,number\nAna,123\n']), new Blob([whole.subarray(0, Math.floor(whole.length / 2))])]) {
      const uploadId = await uploadBackup(call, bad)
      const err = await refusal(call('backups.restoreUpload', { uploadId }))
      expect(err).toMatchObject({ code: 'VALIDATION_ERROR' })
      expect(restoreErrorTitle(err)).toBe('Not restored: this file is not a usable backup')
      expect((err as Error).message).toMatch(/Nothing was changed\./)
    }
    expect(await instanceNames()).toEqual(['Stays'])
  })

  it('refuses a newer release’s backup (409)', async () => {
    const made = await call('backups.now', {})
    const work = join(dir, 'newer')
    await mkdir(work)
    await writeFile(join(work, 'good.tar.gz'), new Uint8Array(await (await downloadBackup(call, made.name)).arrayBuffer()))
    await mkdir(join(work, 'files'))
    await extractTar({ file: join(work, 'good.tar.gz'), cwd: join(work, 'files') })
    const manifest = JSON.parse(await readFile(join(work, 'files', 'manifest.json'), 'utf8'))
    manifest.format = 99
    await writeFile(join(work, 'files', 'manifest.json'), JSON.stringify(manifest))
    const rest = (await readdir(join(work, 'files'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile() && e.name !== 'manifest.json')
    const entries = ['manifest.json', ...rest.map((e) => join(e.parentPath, e.name).slice(join(work, 'files').length + 1))]
    createTar({ file: join(work, 'newer.tar'), cwd: join(work, 'files'), portable: true, sync: true }, entries)
    const newer = new Blob([gzipSync(await readFile(join(work, 'newer.tar')))])
    const err = await refusal(call('backups.restoreUpload', { uploadId: await uploadBackup(call, newer) }))
    expect(err).toMatchObject({ code: 'CONFLICT' })
    expect(restoreErrorTitle(err)).toBe('Not restored: a newer version of the app made this backup')
    expect((err as Error).message).toMatch(/format 99/)
  })

  it('refuses a second restore while one runs (409)', async () => {
    const made = await call('backups.now', {})
    const [a, b] = await Promise.allSettled([call('backups.restoreStored', { name: made.name }), call('backups.restoreStored', { name: made.name })])
    const results = [a, b].map((r) => (r.status === 'fulfilled' ? 'restored' : (r.reason as ContractError).code)).sort()
    expect(results).toEqual(['CONFLICT', 'restored'])
    const busy = [a, b].find((r) => r.status === 'rejected')!.reason
    expect(restoreErrorTitle(busy)).toBe('Not restored: another restore is running')
    expect((busy as Error).message).toMatch(/already running/)
  })

  it('names a full disk and a restore under way in the titles (507, 503)', () => {
    const full = new ContractError({ code: 'INSUFFICIENT_STORAGE', message: 'The disk is full: nothing was saved.' })
    expect(failureTitle('No backup made', full)).toBe('No backup made: the disk is full')
    expect(restoreErrorTitle(full)).toBe('Not restored: the disk is full')
    const swapping = new ContractError({ code: 'SERVICE_UNAVAILABLE', message: 'A backup is being restored; try again in a few seconds.' })
    expect(failureTitle('No backup made', swapping)).toBe('No backup made: the app is busy restoring')
    expect(restoreErrorTitle(swapping)).toBe('Not restored: the app is busy restoring')
    expect(failureTitle('Not uploaded', new ContractError({ code: 'PAYLOAD_TOO_LARGE', message: 'x' }))).toBe('Not uploaded: the file is too large')
    expect(failureTitle('Not downloaded', new Error('offline'))).toBe('Not downloaded')
  })
})
