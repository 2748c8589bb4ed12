/**
 * `npm run restore -- FILE [--data-dir DIR]`: restores a backup into a data dir (docs/storage.md
 * "Backup and restore"): verified whole first (a refused archive changes nothing), the current data
 * moved aside into replaced-<time>/. The app must be stopped: the command takes the data dir's lock,
 * and says how to restore from the running app instead when it cannot.
 *
 * "Nothing was changed" is kept true: a refused restore into a folder that did not exist leaves no
 * folder, and into an existing one no tmp/ it did not have. A restore into a new or empty folder moves
 * nothing aside, so it leaves no empty replaced-<time>/ and does not speak of old data.
 */
import { existsSync } from 'node:fs'
import { mkdir, readdir, rm, rmdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { DIR_MODE } from '../store/config/durable-json-file'
import { DataDirLockedError, lockDataDir } from '../store/data-dir-lock'
import { BackupArchiveError, restoreBackup } from '../store/backup'
import { dataPaths } from '../store/data-paths'
import { consoleIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, resolveDataDir, type CliIo } from './common'

const USAGE = 'Usage: npm run restore -- FILE [--data-dir DIR]'

/** Runs the command; resolves with the exit code. */
export async function runRestoreCommand(argv: string[], env: NodeJS.ProcessEnv = process.env, io: CliIo = consoleIo): Promise<number> {
  let values: { 'data-dir'?: string; help?: boolean }
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true }))
  } catch (err) {
    io.err(`${(err as Error).message}\n${USAGE}`)
    return EXIT_USAGE
  }
  if (values.help) {
    io.out(`${USAGE}\n  FILE            a backup made by npm run backup, Settings → Backup or GET /backup\n  --data-dir DIR  the data dir (default: CHATAPP_DATA_DIR, else the app's folder)`)
    return EXIT_OK
  }
  if (positionals.length !== 1) {
    io.err(`Name one backup file.\n${USAGE}`)
    return EXIT_USAGE
  }
  const archive = resolve(positionals[0]!)
  if (!existsSync(archive)) {
    io.err(`${archive} does not exist.`)
    return EXIT_USAGE
  }
  const dataDir = resolveDataDir(values['data-dir'], env)
  if (env.CHATAPP_MEDIA_DIR?.trim()) {
    // The restore swaps folders of the data dir only: the attachments in the media folder would stay the current ones.
    io.err('CHATAPP_MEDIA_DIR is set: a restore puts attachments/ and media/ into the data dir, not that folder (nothing was changed). Restore without it, then move them into that folder (docs/deploy.md).')
    return EXIT_USAGE
  }
  const existed = existsSync(dataDir)
  const tmp = dataPaths(dataDir).tmp
  const tmpExisted = existsSync(tmp)
  await mkdir(dataDir, { recursive: true, mode: DIR_MODE })
  /** Removes what this command made in a data dir it leaves unchanged (called after the lock is released). */
  const tidy = async () => {
    if (!existed) await rm(dataDir, { recursive: true, force: true })
    else if (!tmpExisted) await rm(tmp, { recursive: true, force: true })
  }
  let release: (() => Promise<void>) | undefined
  try {
    release = await lockDataDir(dataDir, (err) => io.err(`The data dir lock was lost: ${err.message}`))
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) {
      await tidy()
      io.err(`Restore failed: the data dir ${dataDir} cannot be locked (${(err as Error).message}); nothing was changed.`)
      return EXIT_FAILED
    }
    io.err(
      `Chatapp is running with the data dir ${dataDir}, so it cannot be restored from here (nothing was changed). ` +
        'Restore from the running app instead — Settings → Backup → Restore, or POST /restore with the file as ' +
        'application/octet-stream and the account token — or stop the app and run this again.'
    )
    return EXIT_USAGE
  }
  let restored = false
  try {
    io.out(`Verifying ${archive}…`)
    const { manifest, replacedDir } = await restoreBackup(dataDir, archive)
    restored = true
    io.out(`Restored the backup of ${manifest.created_at} (Chatapp Desk ${manifest.app.version}) into ${dataDir}.`)
    // A new or empty data dir had nothing to move aside: no empty folder, no word of old data.
    if ((await readdir(replacedDir)).length === 0) await rmdir(replacedDir)
    else io.out(`The data that was there is kept in ${replacedDir}; delete it when you no longer need it.`)
    return EXIT_OK
  } catch (err) {
    io.err(err instanceof BackupArchiveError ? `The backup was refused: ${err.message}` : `Restore failed: ${(err as Error).message}`)
    return EXIT_FAILED
  } finally {
    await release()
    if (!restored) await tidy()
    else if (!tmpExisted) await rmdir(tmp).catch(() => undefined)
  }
}
