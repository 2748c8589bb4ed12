/**
 * restoreWithReload, the one call of POST /restore and Settings → Backup → Restore, against real
 * storage with a small "core" whose stop/start close and open it: the restored data is served after
 * the call without a restart; a refused archive never stops the core; a core that cannot start on the
 * restored data gets the previous data back.
 */
import { createReadStream } from 'node:fs'
import { readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { silentLogger } from '../../../src/main/logger'
import { BackupArchiveError, createBackup, storageSource } from '../../../src/main/store/backup'
import { openStorage, type Storage } from '../../../src/main/store/storage'
import { restoreWithReload, RestoreBusyError, RestoreStartError } from '../../../src/main/services/backup'
import { checksums, seedDataDir, tempDir } from '../store/backup/helpers'

let work: string
let dataDir: string
let archive: string
/** The "core": the storage it has open, null while stopped. */
let running: Storage | null
let calls: string[]
let failNextStart = false

const hooks = () => ({
  dataDir,
  logger: silentLogger(),
  stop: async () => {
    calls.push('stop')
    await running!.close()
    running = null
  },
  start: async () => {
    calls.push('start')
    if (failNextStart) {
      failNextStart = false
      throw new Error('the core refused this data')
    }
    running = await openStorage(dataDir)
  }
})

beforeEach(async () => {
  work = tempDir()
  const other = await seedDataDir(join(work, 'other'), 'a')
  archive = join(work, 'a.tar.gz')
  await createBackup(storageSource(other), archive)
  await other.close()
  dataDir = join(work, 'data')
  running = await seedDataDir(dataDir, 'b')
  calls = []
})
afterEach(async () => {
  await running?.close()
  await rm(work, { recursive: true, force: true })
})

describe('restoreWithReload', () => {
  it('verifies, stops the core, swaps the data, starts the core: the restored data is served', async () => {
    const result = await restoreWithReload(createReadStream(archive), hooks())
    expect(calls).toEqual(['stop', 'start'])
    expect(running!.repos.account.get()?._id).toBe('acct-a')
    expect(await running!.repos.attachments.find('att-a-1')).toMatchObject({ _id: 'att-a-1' })
    expect(result.manifest.app.id).toBe('chatapp-desk')
    expect((await readdir(result.replacedDir)).sort()).toEqual(['attachments', 'chatapp.db', 'config.json', 'media'])
  })

  it('a refused archive: the core is never stopped, the data is unchanged', async () => {
    const bad = join(work, 'bad.tar.gz')
    await writeFile(bad, 'not an archive')
    await running!.close()
    const before = await checksums(dataDir)
    running = await openStorage(dataDir)
    await expect(restoreWithReload(bad, hooks())).rejects.toBeInstanceOf(BackupArchiveError)
    expect(calls).toEqual([])
    expect(running!.repos.account.get()?._id).toBe('acct-b')
    await running!.close()
    running = null
    expect(await checksums(dataDir)).toEqual(before)
  })

  it('a core that cannot start on the restored data: the previous data is put back and served', async () => {
    failNextStart = true
    const err = await restoreWithReload(archive, hooks()).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RestoreStartError)
    expect((err as Error).message).toMatch(/could not start on the restored data \(the core refused this data\), so the data in place before was put back/)
    expect(calls).toEqual(['stop', 'start', 'start'])
    expect(running!.repos.account.get()?._id).toBe('acct-b')
    expect((await running!.repos.messages.list('inst0000000000000000000a', { limit: 1 }))[0]!.text).toMatch(/^b message/)
    // The restored data was kept aside, whole.
    const kept = await openStorage((err as RestoreStartError).restoredDir)
    try {
      expect(kept.repos.account.get()?._id).toBe('acct-a')
    } finally {
      await kept.close()
    }
    expect((await readdir(dataDir)).filter((n) => n.startsWith('restore-'))).toEqual([])
  })

  it('one restore at a time per data dir', async () => {
    const first = restoreWithReload(archive, hooks())
    await expect(restoreWithReload(archive, hooks())).rejects.toBeInstanceOf(RestoreBusyError)
    await first
    expect(running!.repos.account.get()?._id).toBe('acct-a')
  })
})
