/**
 * The check of a copy (./copy.ts): per table, the number of rows and a sha256 over them in primary-key
 * order, computed the same way on SQLite and PostgreSQL so equal data gives equal sums.
 *
 * What makes the two databases' rows comparable is mostly done by the data layer already
 * (../db/postgres-dialect.ts): integers (flags, epoch ms, counters; `bigint` on PostgreSQL) come back
 * as JS numbers from both, blobs as Uint8Array from both, booleans do not exist (flags are 0/1),
 * JSON and ISO times are text stored as written. What is left here: the column order (PostgreSQL
 * keeps the order of the ALTERs, which may differ from SQLite's), so each row is written with its
 * columns sorted by name; blobs as hex; a bigint (never produced by our dialects, but a driver option
 * away) as its decimal digits, which is how a number within 2^53 prints too. Text compares byte for
 * byte: both databases order the key's text columns bytewise (BINARY / COLLATE "C"), so the order of
 * rows agrees too.
 */
import { createHash, type Hash } from 'node:crypto'

/** A row's value as hashed (see the module doc). */
function normalise(value: unknown): unknown {
  if (value === null || value === undefined) return null
  if (value instanceof Uint8Array) return { hex: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex') }
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  if (typeof value === 'boolean') return value ? 1 : 0
  return value
}

/** The line hashed for a row: its columns sorted by name, as JSON. */
export function rowLine(row: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(
    Object.keys(row)
      .sort()
      .map((k) => [k, normalise(row[k])])
  )
}

/** Rows and sha256 of one table, fed the rows in primary-key order. */
export class TableDigest {
  private readonly hash: Hash = createHash('sha256')
  rows = 0

  add(row: Readonly<Record<string, unknown>>): void {
    this.hash.update(rowLine(row))
    this.hash.update('\n')
    this.rows++
  }

  /** The sum as hex (once: the digest is final). */
  hex(): string {
    return this.hash.digest('hex')
  }
}

/** The sha256 (hex) of a configuration document, over its JSON without indentation. */
export function documentChecksum(doc: unknown): string {
  return createHash('sha256').update(JSON.stringify(doc)).digest('hex')
}
