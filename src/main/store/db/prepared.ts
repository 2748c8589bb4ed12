/**
 * Statements of the hot write path built and compiled by Kysely once per dialect, then run with new
 * values. In the writer thread, building and compiling a send's statements cost about 30 µs of its
 * ~170 µs of CPU a send, as much as SQLite's own work for them (docs/benchmarks.md "Sends: a turn's
 * acknowledgements together, and the storage contract's floor"). A prepared statement is written with
 * Kysely as any other, over stand-ins for its values; what is kept is the compiled text and where each
 * stand-in lands among the parameters. The SQLite threads then find the text in their statement cache
 * (./sqlite-thread/sync-dialect.ts), so nothing is parsed again either.
 *
 * The rule for `build`: the values it is given may only be placed in the statement as values (in
 * `values`, `set`, `where`), never looked at or combined in JavaScript: they are stand-ins when it runs.
 * One that does not reach the parameters is caught on the first run ({@link PreparedStatementError}).
 */
import { CompiledQuery, type Compilable, type Kysely } from 'kysely'
import { dialectOf, type DialectName } from './dialect'

/** A value's stand-in while the statement is built. */
class StandIn {
  constructor(readonly key: string) {}
}

/** A prepared statement's `build` used one of its values in JavaScript, or dropped it. */
export class PreparedStatementError extends Error {
  constructor(sql: string) {
    super(`A prepared statement does not take each of its values as a parameter: ${sql}`)
    this.name = 'PreparedStatementError'
  }
}

interface Compiled {
  sql: string
  /** Per parameter: the name of the value it takes, or a constant of the statement. */
  slots: Array<string | { constant: unknown }>
}

/**
 * `build` compiled once per dialect over the values' names (`values` of each run has the same keys);
 * the function answers the rows the statement returns (none for one without RETURNING). `db` may be
 * a transaction. Rejects as the statement would; throws {@link PreparedStatementError} on the first
 * run when a value does not become a parameter.
 */
export function prepared<DB, V extends object, R>(build: (db: Kysely<DB>, values: V) => Compilable<R>): (db: Kysely<DB>, values: V) => Promise<R[]> {
  const byDialect = new Map<DialectName, Compiled>()
  return async (db, values) => {
    const dialect = dialectOf(db)
    let compiled = byDialect.get(dialect)
    if (!compiled) {
      const keys = Object.keys(values)
      const standIns = Object.fromEntries(keys.map((k) => [k, new StandIn(k)])) as unknown as V
      const query = build(db, standIns).compile()
      const slots = query.parameters.map((p) => (p instanceof StandIn ? p.key : { constant: p }))
      const taken = new Set(slots.filter((s): s is string => typeof s === 'string'))
      if (taken.size !== keys.length) throw new PreparedStatementError(query.sql)
      compiled = { sql: query.sql, slots }
      byDialect.set(dialect, compiled)
    }
    const parameters = compiled.slots.map((s) => (typeof s === 'string' ? (values as Record<string, unknown>)[s] : s.constant))
    return (await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters))).rows
  }
}
