/**
 * Databases of the run's PostgreSQL server (test/support/postgres-global-setup.ts) for the data
 * layer's tests: each call makes a fresh, empty database and answers its URL; `dropTestDatabase`
 * removes it. Throws the reason when the run has no server (PostgreSQL missing): tests that need it
 * fail, they are never skipped.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'
import { openPostgresDatabase } from '../../src/main/store/db/database'

/** The backends every repository test runs on. */
export const BACKENDS = ['sqlite', 'postgres'] as const
export type Backend = (typeof BACKENDS)[number]

function serverUrl(): string {
  const p = inject('postgres')
  if ('error' in p) throw new Error(p.error)
  return p.url
}

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl() })
  await c.connect()
  try {
    return await work(c)
  } finally {
    await c.end()
  }
}

/**
 * A new empty database on the test server; answers its URL (`postgres://…/t_<random>`). With
 * `template` (the URL of another test database, nobody connected to it), a copy of that one instead
 * (`CREATE DATABASE … TEMPLATE`).
 */
export async function createTestDatabase(template?: string): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`
  const from = template === undefined ? '' : ` TEMPLATE ${testDatabaseName(template)}`
  await admin((c) => c.query(`CREATE DATABASE ${name}${from}`))
  const url = new URL(serverUrl())
  url.pathname = `/${name}`
  return url.toString()
}

let migrated: Promise<string> | undefined

/**
 * A new database already at this version's schema: the app's own migrations run once per test
 * process on a database kept as the template, and each call copies it (`CREATE DATABASE … TEMPLATE`).
 * For tests that need the schema, not the way to it: they skip replaying every migration on each
 * open (a few hundred ms a database). The migrations themselves run from an empty database in
 * test/unit/store/migrations.test.ts and database.test.ts.
 */
export async function createMigratedTestDatabase(): Promise<string> {
  migrated ??= (async () => {
    const url = await createTestDatabase()
    const db = await openPostgresDatabase(url)
    await db.close()
    return url
  })()
  return createTestDatabase(await migrated)
}

/** Drops the database at `url` (made by {@link createTestDatabase}), closing what is still connected. */
export async function dropTestDatabase(url: string): Promise<void> {
  const name = testDatabaseName(url)
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
}

/** The name of the test database at `url` (made by {@link createTestDatabase}); throws for any other. */
function testDatabaseName(url: string): string {
  const name = new URL(url).pathname.slice(1)
  if (!/^t_[0-9a-f]+$/.test(name)) throw new Error(`Not a test database: ${name}`)
  return name
}
