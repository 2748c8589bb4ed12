/**
 * `npm run backup -- --out FILE [--data-dir DIR] [--media]`: writes a backup of a data dir to FILE
 * (docs/storage.md "Backup and restore"). Works while the app runs on that data dir: it reads the
 * database through SQLite's online backup on a read-only connection and takes no lock. With
 * `CHATAPP_MEDIA_DIR` set, the attachments (and media) are read from that folder, as the app keeps them.
 */
import { existsSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createBackup, openDataDirSource } from '../store/backup'
import { ConfigError, readMediaDir } from '../config'
import { consoleIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, resolveDataDir, size, type CliIo } from './common'

const USAGE = 'Usage: npm run backup -- --out FILE [--data-dir DIR] [--media]'

/** Runs the command; resolves with the exit code. */
export async function runBackupCommand(argv: string[], env: NodeJS.ProcessEnv = process.env, io: CliIo = consoleIo): Promise<number> {
  let values: { out?: string; 'data-dir'?: string; media?: boolean; help?: boolean }
  try {
    ;({ values } = parseArgs({ args: argv, options: { out: { type: 'string' }, 'data-dir': { type: 'string' }, media: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true }))
  } catch (err) {
    io.err(`${(err as Error).message}\n${USAGE}`)
    return EXIT_USAGE
  }
  if (values.help) {
    io.out(`${USAGE}\n  --out FILE      the archive to write (.tar.gz); must not exist yet\n  --data-dir DIR  the data dir (default: CHATAPP_DATA_DIR, else the app's folder)\n  --media         include media/ (inbound media; left out by default)`)
    return EXIT_OK
  }
  if (!values.out) {
    io.err(`--out FILE is required.\n${USAGE}`)
    return EXIT_USAGE
  }
  const out = resolve(values.out)
  if (existsSync(out)) {
    io.err(`${out} exists already; choose another name (nothing was written).`)
    return EXIT_USAGE
  }
  const dataDir = resolveDataDir(values['data-dir'], env)
  let mediaDir: string | undefined
  try {
    mediaDir = readMediaDir(env)
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    io.err(`${err.message} (nothing was written).`)
    return EXIT_USAGE
  }
  let source: Awaited<ReturnType<typeof openDataDirSource>> | undefined
  try {
    source = await openDataDirSource(dataDir, mediaDir ? { mediaDir } : {})
    const manifest = await createBackup(source, out, { includeMedia: values.media === true })
    const bytes = (await stat(out)).size
    io.out(
      `Backup of ${dataDir} written to ${out} (${size(bytes)}; ${manifest.files.length} files; database version ${manifest.database.version}; ` +
        `Chatapp Desk ${manifest.app.version}${manifest.includes_media ? '; with media' : ''}).`
    )
    return EXIT_OK
  } catch (err) {
    io.err(`Backup failed: ${(err as Error).message}`)
    return EXIT_FAILED
  } finally {
    await source?.close()
  }
}
