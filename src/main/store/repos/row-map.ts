/**
 * A record ↔ its row, by one naming rule instead of a hand-written mapper per table. A record field is
 * kept in the column of its name, with the record's bookkeeping names (docs/api-seed.md §2.2) and
 * camelCase turned into the schema's: `_id` → `id`, `__v` → `v`, `createdAt` → `created_at`,
 * `chatId` → `chat_id`; snake_case names stay. Each table says only how each field is stored
 * ({@link FieldRule}); the compiler checks that every field is named and that its column exists.
 */
import { fromJson, isSet, flag, toJson } from './exec'
import { msToTime, timeToMs } from '../db/times'

/** A record ↔ its row. */
export interface RowMap<T, R> {
  toRow(record: T): R
  fromRow(row: R): T
}

/**
 * How a record field is stored: `as is`, `json` (JSON text, exec.ts toJson/fromJson; a null value is
 * a NULL column), `flag` (a boolean as 0/1) or `time` (an instant the record holds as ISO 8601 text,
 * stored as epoch ms: ../db/times.ts; a null value is a NULL column). `optional …`: the field may be absent from the record; it is NULL in the row then,
 * and a NULL column leaves the field out of the record.
 */
export type FieldRule = 'as is' | 'json' | 'flag' | 'time' | 'optional' | 'optional json' | 'optional flag' | 'optional time'

/** `createdAt` → `created_at` (a type: the column a field name maps to). */
type Snake<S extends string> = S extends `${infer H}${infer Rest}` ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${Snake<Rest>}` : S

/** The column of record field `K` (see the module doc). */
export type ColumnOf<K extends string> = K extends '_id' ? 'id' : K extends '__v' ? 'v' : Snake<K>

/** Every field of `T` with its rule; a field whose column `R` lacks does not compile. */
export type RowSpec<T, R> = { readonly [K in keyof T & string]-?: ColumnOf<K> extends keyof R ? FieldRule : `no column ${ColumnOf<K>}` }

/** The column of record field `field` at run time (the same rule as {@link ColumnOf}). */
export function columnOf(field: string): string {
  if (field === '_id') return 'id'
  if (field === '__v') return 'v'
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/**
 * The mapping of records `T` to rows `R` by `spec`. The row holds exactly the spec's columns and the
 * record exactly its fields (in the spec's order), whatever else either carries. Throws what
 * JSON.parse throws on a JSON column that is not JSON (a corrupt row).
 */
export function rowMap<T extends object, R extends object>(spec: RowSpec<T, R>): RowMap<T, R> {
  const fields = Object.entries(spec as Record<string, FieldRule>).map(([field, rule]) => ({
    field,
    column: columnOf(field),
    optional: rule.startsWith('optional'),
    as: rule.endsWith('json') ? 'json' : rule.endsWith('flag') ? 'flag' : rule.endsWith('time') ? 'time' : 'as is'
  }))
  type Field = (typeof fields)[number]
  const encode = (f: Field, v: unknown): unknown => {
    if (v === undefined && f.optional) return null
    if (f.as === 'json') return v === null ? null : toJson(v)
    if (f.as === 'time') return v === null ? null : timeToMs(v as string)
    return f.as === 'flag' ? flag(v as boolean) : v
  }
  const decode = (f: Field, c: unknown): unknown => {
    if (f.as === 'json') return c === null ? null : fromJson(c as string)
    if (f.as === 'time') return c === null ? null : msToTime(c as number)
    return f.as === 'flag' ? isSet(c as number | null) : c
  }
  return {
    toRow(record) {
      const values = record as Record<string, unknown>
      const row: Record<string, unknown> = {}
      for (const f of fields) row[f.column] = encode(f, values[f.field])
      return row as R
    },
    fromRow(row) {
      const columns = row as Record<string, unknown>
      const record: Record<string, unknown> = {}
      for (const f of fields) {
        const c = columns[f.column]
        if (!(f.optional && c === null)) record[f.field] = decode(f, c)
      }
      return record as T
    }
  }
}
