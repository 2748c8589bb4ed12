/**
 * Kysely on PostgreSQL through node-postgres (`pg`) with a pool: Kysely's own PostgresDialect, over a
 * pool of ours that makes PostgreSQL's values and errors look like the SQLite dialect's
 * (./sqlite-thread/), so the repositories read the same rows from both:
 *
 * - `bigint` (int8) and `numeric` (what sum() of bigints gives) come back as JS numbers, not the
 *   strings `pg` gives by default (our int8 columns hold epoch ms and counters, far below 2^53; a
 *   larger value throws instead of losing digits);
 * - `bytea` comes back as a plain Uint8Array (node:sqlite's blob), not a Buffer;
 * - booleans are bound as 0/1 (flag columns are integers on both) and `undefined` as NULL;
 * - a full disk (SQLSTATE 53100) becomes {@link StorageFullError}.
 *
 * The parsers are the pool's own (`types`), not pg's global registry: nothing else in the process
 * that uses `pg` is changed.
 */
import pg from 'pg'
import { PostgresDialect, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely'
import { StorageFullError } from './errors'

const INT8 = 20
const NUMERIC = 1700
const BYTEA = 17

function int8(text: string): number {
  const n = Number(text)
  if (!Number.isSafeInteger(n)) throw new RangeError(`A bigint read from PostgreSQL (${text}) is beyond JavaScript's safe integers.`)
  return n
}

const parseBytea = pg.types.getTypeParser(BYTEA, 'text') as (text: string) => Buffer

/** The pool's type parsers (see the module doc); every other type as pg parses it. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (format === undefined || format === 'text') {
      if (oid === INT8) return int8
      if (oid === NUMERIC) return Number
      if (oid === BYTEA) {
        return (text) => {
          const b = parseBytea(text)
          return new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
        }
      }
    }
    return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown
  }
}

/** SQLSTATE of a PostgreSQL error (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
export function pgCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/** `err` as a storage error where PostgreSQL's SQLSTATE says which; other errors as they are. */
export function pgStorageError(err: unknown, where: string): unknown {
  return pgCode(err) === '53100' ? new StorageFullError(where, err) : err
}

function bind(parameters: ReadonlyArray<unknown>): unknown[] {
  return parameters.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p))
}

export interface PostgresOptions {
  /** Connections at most (default 10). */
  poolSize?: number
}

/**
 * A pg Pool for `url` with the parsers and bindings above, and the Kysely dialect over it. `where`
 * names the database in errors (the URL without its password). The caller ends the pool (Kysely's
 * `destroy()` does).
 */
export function postgresDialect(url: string, where: string, options: PostgresOptions = {}): { dialect: PostgresDialect; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, types })
  // An idle connection that breaks (the server restarted, a proxy's timeout) is dropped by the pool,
  // which emits 'error': unheard, Node would end the process. The next query opens a new connection
  // and meets the failure itself if the server is still away.
  pool.on('error', () => {})
  const adapted: PostgresPool = {
    options: pool.options,
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient
      try {
        client = await pool.connect()
      } catch (err) {
        throw pgStorageError(err, where)
      }
      // A connection that breaks while checked out between two queries (a transaction's) emits
      // 'error' with nobody listening but us: noted here, so the client is destroyed on release
      // instead of going back to the pool; its next query fails on its own.
      let broken: Error | undefined
      const onError = (err: Error): void => {
        broken ??= err
      }
      client.on('error', onError)
      return {
        query: (async (sqlText: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<unknown>> => {
          try {
            return (await client.query(sqlText, bind(parameters))) as unknown as PostgresQueryResult<unknown>
          } catch (err) {
            throw pgStorageError(err, where)
          }
        }) as PostgresPoolClient['query'],
        release: (destroy?: boolean) => {
          client.off('error', onError)
          client.release(broken ?? destroy)
        }
      }
    },
    end: () => pool.end()
  }
  return { dialect: new PostgresDialect({ pool: adapted }), pool }
}

/** `url` without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'the PostgreSQL database (CHATAPP_DATABASE_URL)'
  }
}
