/**
 * A real PostgreSQL server for the tests (never a mock): Debian's own binaries
 * (`/usr/lib/postgresql/<version>/bin`, the `postgresql` package that .ci/run installs), a cluster
 * made by initdb in a temp dir and started by `pg_ctl -w` (which returns once the server accepts
 * connections) on a free loopback port. initdb and postgres refuse to run as root: a root process
 * runs them as the `postgres` OS user (`runuser`), with the temp dir given to that user.
 *
 * Settings for tests only: trust authentication on loopback, no fsync (a crashed test cluster is
 * thrown away), UTF-8 with the C.UTF-8 locale (lower() folds every script, as production servers'
 * UTF-8 locales do), and enough connections for parallel test files.
 */
import { execFile } from 'node:child_process'
import { chown, mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)

/** The oldest PostgreSQL the app supports (docs/storage.md). */
const MIN_MAJOR = 14

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the superuser on the maintenance database. */
  url: string
  stop(): Promise<void>
}

/**
 * The directory of initdb and pg_ctl: `PG_BINDIR`, else the newest `/usr/lib/postgresql/<v>/bin`
 * (v ≥ 14). Throws, saying how to install them, when there is none.
 */
export async function findPostgresBinaries(): Promise<string> {
  const install = "Install Debian's package (apt-get install -y --no-install-recommends postgresql; .ci/run does it) or set PG_BINDIR."
  const fromEnv = process.env.PG_BINDIR?.trim()
  if (fromEnv) {
    if (await stat(join(fromEnv, 'initdb')).then(() => true, () => false)) return fromEnv
    throw new Error(`PostgreSQL is needed for the data layer's tests: PG_BINDIR (${fromEnv}) has no initdb. ${install}`)
  }
  const root = '/usr/lib/postgresql'
  const versions = (await readdir(root).catch(() => [] as string[]))
    .map(Number)
    .filter((v) => Number.isInteger(v) && v >= MIN_MAJOR)
    .sort((a, b) => b - a)
  for (const v of versions) {
    const bin = join(root, String(v), 'bin')
    if (await stat(join(bin, 'initdb')).then(() => true, () => false)) return bin
  }
  throw new Error(`PostgreSQL ${MIN_MAJOR}+ is needed for the data layer's tests and was not found (no ${root}/<version>/bin/initdb). ${install}`)
}

/** A loopback TCP port nobody listens on now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

/** Starts a fresh cluster; `stop()` stops it and deletes its files. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = await findPostgresBinaries()
  const asRoot = process.getuid?.() === 0
  const exec = (cmd: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]) : run(join(bin, cmd), args))
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-pg-'))
  const data = join(dir, 'data')
  const log = join(dir, 'server.log')
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    await chown(dir, Number(stdout.trim()), Number(gid.trim()))
  }
  const stop = async (): Promise<void> => {
    await exec('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => {})
    await rm(dir, { recursive: true, force: true })
  }
  try {
    await exec('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'])
    // A port can be taken between the check and the start (other test runs): try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort()
      const settings = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`
      try {
        await exec('pg_ctl', ['-D', data, '-l', log, '-o', settings, '-w', '-t', '60', 'start'])
        return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop }
      } catch (err) {
        if (attempt >= 3) throw err
      }
    }
  } catch (err) {
    await stop()
    throw new Error(`The test PostgreSQL server did not start: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }
}

/** Makes database `name` on the server at `serverUrl` (its `postgres` database's URL); answers the new database's URL. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}
