/**
 * `npm run db:copy -- --from <data dir | postgres://…> --to <data dir | postgres://…>`: copies a desk
 * from a data dir's SQLite database to PostgreSQL, or back, or between two of a kind, and checks the
 * copy by counts and checksums (../store/copy; docs/deploy.md "Moving a desk between SQLite and
 * PostgreSQL"). Prints one line per table (rows, checksum, ok) and what is left to copy by hand (the
 * attachment and media files). Exit codes (./common.ts): 0 copied and checked; 1 failed, refused (the
 * target holds a desk, an end from a newer release) or did not check out (rolled back); 2 wrong usage,
 * or an end in use by a running app.
 */
import { parseArgs } from 'node:util'
import { NewerDatabaseError } from '../store/db/database'
import { DataFileError } from '../store/config/durable-json-file'
import { copyDesk, CopyMismatchError, CopyRefusedError, describeEndpoint, FILES_NOT_COPIED, parseEndpoint, type CopyEndpoint, type CopyReport } from '../store/copy'
import { consoleIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './common'

const USAGE = 'Usage: npm run db:copy -- --from <data dir | postgres://…> --to <data dir | postgres://…>'

const HELP = `${USAGE}
  --from  the desk to copy: a data dir (its chatapp.db and config.json; the app must be stopped) or a
          PostgreSQL database (postgres://user:password@host:port/db; every worker stopped)
  --to    where to: an empty or new folder, or an empty PostgreSQL database (migrated first)
Every table and the configuration document are copied in one transaction and checked (rows and sha256
per table) before it commits; a failure or a mismatch leaves the target as it was.
Attachment and media files are not in the database: copy them by hand (the command is printed).`

/** The report as a table: table, rows, checksum (first 16 hex digits), ok. */
export function formatReport(report: CopyReport): string[] {
  const w = Math.max(6, ...report.tables.map((t) => t.table.length))
  const rowsOf = (t: CopyReport['tables'][number]) => (t.sourceRows === t.targetRows ? String(t.sourceRows) : `${t.sourceRows} → ${t.targetRows}`)
  const rw = Math.max(4, ...report.tables.map((t) => rowsOf(t).length))
  const sum = (t: CopyReport['tables'][number]) => (t.sourceChecksum === t.targetChecksum ? t.sourceChecksum.slice(0, 16) : `${t.sourceChecksum.slice(0, 16)} → ${t.targetChecksum.slice(0, 16)}`)
  const lines = [`${'table'.padEnd(w)}  ${'rows'.padStart(rw)}  ${'sha256'.padEnd(16)}  ok`]
  for (const t of report.tables) lines.push(`${t.table.padEnd(w)}  ${rowsOf(t).padStart(rw)}  ${(sum(t) || '-').padEnd(16)}  ${t.ok ? 'ok' : 'MISMATCH'}`)
  return lines
}

/** What to copy by hand, with the command. */
function filesNote(from: CopyEndpoint, to: CopyEndpoint): string {
  const fromDir = from.kind === 'dir' ? from.dir : '<the data dir of a worker of the source>'
  const toDir = to.kind === 'dir' ? to.dir : '<the data dir of each worker (CHATAPP_DATA_DIR)>'
  return `Not copied: ${FILES_NOT_COPIED} stay in the data dir. Copy them by hand: rsync -a ${fromDir}/attachments ${fromDir}/media ${toDir}/`
}

/** Runs the command; resolves with the exit code. */
export async function runDbCopyCommand(argv: string[], io: CliIo = consoleIo): Promise<number> {
  let values: { from?: string; to?: string; help?: boolean }
  try {
    ;({ values } = parseArgs({ args: argv, options: { from: { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }))
  } catch (err) {
    io.err(`${(err as Error).message}\n${USAGE}`)
    return EXIT_USAGE
  }
  if (values.help) {
    io.out(HELP)
    return EXIT_OK
  }
  if (!values.from || !values.to) {
    io.err(`Both --from and --to are required.\n${USAGE}`)
    return EXIT_USAGE
  }
  let from: CopyEndpoint
  let to: CopyEndpoint
  try {
    from = parseEndpoint(values.from)
    to = parseEndpoint(values.to)
  } catch (err) {
    io.err(`${(err as Error).message}\n${USAGE}`)
    return EXIT_USAGE
  }
  io.out(`Copying ${describeEndpoint(from)} to ${describeEndpoint(to)}…`)
  try {
    const report = await copyDesk(from, to, { onTable: (table, rows) => void (rows > 0 && io.err(`  copied ${table}: ${rows} rows`)) })
    for (const line of formatReport(report)) io.out(line)
    const perSecond = report.ms > 0 ? Math.round((report.rows / report.ms) * 1000) : report.rows
    io.out(`Copied and checked ${report.rows} rows in ${(report.ms / 1000).toFixed(1)} s (${perSecond} rows/s): every count and checksum matches.`)
    io.out(filesNote(from, to))
    if (to.kind === 'postgres') io.out(`Start the workers with CHATAPP_DATABASE_URL set to that database (docs/deploy.md).`)
    else io.out(`Start the app with CHATAPP_DATA_DIR=${to.dir} and without CHATAPP_DATABASE_URL.`)
    return EXIT_OK
  } catch (err) {
    if (err instanceof CopyMismatchError) {
      for (const line of formatReport(err.report)) io.out(line)
      io.err(err.message)
      return EXIT_FAILED
    }
    if (err instanceof CopyRefusedError) {
      io.err(`Refused: ${err.message}`)
      return err.reason === 'source-in-use' || err.reason === 'target-in-use' ? EXIT_USAGE : EXIT_FAILED
    }
    if (err instanceof NewerDatabaseError || err instanceof DataFileError) {
      io.err(`Refused: ${err.message} Nothing was copied.`)
      return EXIT_FAILED
    }
    io.err(`The copy failed and was rolled back (the target is as it was): ${(err as Error).message}`)
    return EXIT_FAILED
  }
}
