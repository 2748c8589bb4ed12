/**
 * The query fragments that SQLite and PostgreSQL spell differently, one function each, so the
 * repositories say what they want and get the same rows on both (docs/storage.md, "PostgreSQL"):
 *
 * - search: SQLite's FTS5 trigram tables (`messages_fts`, `contacts_fts`, `MATCH`) ↔ PostgreSQL's
 *   `pg_trgm` GIN indexes over the same folded words (`messages_words.words LIKE '%term%'`,
 *   `chatapp_contact_words(...) LIKE '%term%'`; migration 1). Both match every term of 3+
 *   characters inside words, any case, any accents;
 * - an IN list kept off an index (SQLite's unary `+`; PostgreSQL's planner needs no hint);
 * - case-insensitive LIKE (SQLite's LIKE folds ASCII; PostgreSQL's ILIKE does the same on our
 *   byte-compared "C" columns);
 * - the larger of two values (SQLite's two-argument max(), PostgreSQL's greatest()).
 */
import { sql, type Expression, type Kysely, type Selectable, type SqlBool } from 'kysely'
import type { Database, MessagesTable } from './schema'
import { dialectOf, type AnyDb } from './dialect'
import { ftsQuery, longTerms } from '../repos/search-terms'
import { notErasing } from '../repos/erasing'

/** `term` for LIKE: its wildcards and the escape character taken literally (backslash, PostgreSQL's default escape). */
export function likeLiteral(term: string): string {
  return term.replace(/[\\%_]/g, (c) => '\\' + c)
}

/**
 * PostgreSQL: `words` contains every term of `terms` (already folded by ../repos/search-terms; the
 * database folds them again with the index's own function, so both sides agree on ß, æ and the like).
 */
export function allTermsIn(words: Expression<string>, terms: readonly string[]): Expression<SqlBool> {
  return sql<SqlBool>`(${sql.join(
    terms.map((t) => sql`${words} LIKE '%' || chatapp_fold(${likeLiteral(t)}) || '%'`),
    sql` AND `
  )})`
}

/** Where a search of messages starts and what it keeps. */
export interface MessageMatchQuery {
  instanceId: string
  chatId?: string
  /** The search box's text; its terms of 3+ characters go through the index. */
  q: string
  /** Only messages inserted before this one (its `seq`). */
  beforeSeq: number
  limit: number
}

/**
 * The messages of an instance (one chat's with `chatId`) whose words contain every term of 3+
 * characters of `q`, newest first (by `seq`), at most `limit`; empty when `q` has no such term.
 * SQLite: streamed from the FTS5 index in rowid order, joined to `messages` by primary key with a
 * CROSS JOIN (SQLite keeps that join order and stops at the limit; left to choose, it walked the
 * instance's whole index: 20–50 ms at 1M messages, docs/storage.md "Search").
 */
export async function matchingMessages(db: Kysely<Database>, query: MessageMatchQuery): Promise<Array<Selectable<MessagesTable>>> {
  const terms = longTerms(query.q)
  if (terms.length === 0) return []
  if (dialectOf(db) === 'sqlite') {
    const inChat = query.chatId === undefined ? sql`` : sql`AND m.chat_id = ${query.chatId}`
    const { rows } = await sql<Selectable<MessagesTable>>`SELECT m.* FROM messages_fts f CROSS JOIN messages m ON m.seq = f.rowid
      WHERE messages_fts MATCH ${ftsQuery(query.q)} AND f.rowid < ${query.beforeSeq} AND m.instance_id = ${query.instanceId} ${inChat} AND ${notErasing('m')}
      ORDER BY f.rowid DESC LIMIT ${query.limit}`.execute(db)
    return rows
  }
  // The folded words are stored (messages_words): the planner may walk the newest messages or take
  // the index's candidates, and either way a row costs a LIKE on stored text.
  return db
    .withTables<MessagesWordsTable>()
    .selectFrom('messages_words as w')
    .innerJoin('messages as m', 'm.seq', 'w.seq')
    .selectAll('m')
    .where('m.instance_id', '=', query.instanceId)
    .where('w.seq', '<', query.beforeSeq)
    .where((eb) => allTermsIn(eb.ref('w.words'), terms))
    .where(notErasing('m'))
    .$if(query.chatId !== undefined, (q) => q.where('m.chat_id', '=', query.chatId!))
    .orderBy('w.seq', 'desc')
    .limit(query.limit)
    .execute()
}

/**
 * PostgreSQL only: each message's words as search folds them (migration 1 keeps it by triggers);
 * SQLite's counterpart is the FTS5 table `messages_fts`. Not in ./schema.ts: nothing but this module
 * reads it.
 */
type MessagesWordsTable = {
  messages_words: { seq: number; words: string }
}

/**
 * The chats (instance_id, chat_id) of the newest `limit` messages, of any instance, whose words
 * contain every term of 3+ characters of `q`: a subquery for `(instance_id, chat_id) IN (...)`.
 * Null when `q` has no such term.
 */
export function chatsOfMatchingMessages(db: Kysely<Database>, q: string, limit: number): Expression<{ instance_id: string; chat_id: string }> | null {
  const terms = longTerms(q)
  if (terms.length === 0) return null
  if (dialectOf(db) === 'sqlite') {
    return sql<{ instance_id: string; chat_id: string }>`(SELECT instance_id, chat_id FROM messages WHERE seq IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ${ftsQuery(q)} ORDER BY rowid DESC LIMIT ${limit}))`
  }
  return db
    .withTables<MessagesWordsTable>()
    .selectFrom('messages_words as w')
    .innerJoin('messages as m', 'm.seq', 'w.seq')
    .select(['m.instance_id', 'm.chat_id'])
    .where((eb) => allTermsIn(eb.ref('w.words'), terms))
    .orderBy('w.seq', 'desc')
    .limit(limit)
}

/**
 * The `seq` of every contact whose name, number or notes contain every term of 3+ characters of
 * `q`: a subquery for `seq IN (...)`. Null when `q` has no such term.
 */
export function matchingContactSeqs(db: Kysely<Database>, q: string): Expression<number> | null {
  const terms = longTerms(q)
  if (terms.length === 0) return null
  if (dialectOf(db) === 'sqlite') return sql<number>`(SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH ${ftsQuery(q)})`
  return db
    .selectFrom('contacts as ct')
    .select('ct.seq')
    .where((eb) => allTermsIn(eb.fn<string>('chatapp_contact_words', [eb.ref('ct.name'), eb.ref('ct.number'), eb.ref('ct.notes')]), terms))
    .$asScalar()
}

/**
 * `column IN (values)`, kept off the column's index on SQLite (a unary `+`): there the recency
 * index must give the order, or SQLite sorts every row of the list (1.3 s at 20,000 chats).
 * PostgreSQL's planner weighs the two itself. `values` must not be empty.
 */
export function inListUnindexed(db: AnyDb, column: string, values: readonly string[]): Expression<SqlBool> {
  if (dialectOf(db) === 'sqlite') return sql<SqlBool>`+${sql.ref(column)} IN (${sql.join(values)})`
  return sql<SqlBool>`${sql.ref(column)} IN (${sql.join(values)})`
}

/**
 * `column` matches the LIKE `pattern` (backslash escapes), ASCII letters in any case: SQLite's
 * LIKE, PostgreSQL's ILIKE (the columns compare byte by byte, so it folds ASCII only, as SQLite does).
 */
export function likeAnyCase(db: AnyDb, column: string, pattern: string): Expression<SqlBool> {
  if (dialectOf(db) === 'sqlite') return sql<SqlBool>`${sql.ref(column)} LIKE ${pattern} ESCAPE '\\'`
  return sql<SqlBool>`${sql.ref(column)} ILIKE ${pattern} ESCAPE '\\'`
}

/** The larger of two values (SQLite's scalar max(a, b); PostgreSQL's greatest(a, b)). */
export function larger<T>(db: AnyDb, a: Expression<T>, b: Expression<T>): Expression<T> {
  return sql<T>`${sql.raw(dialectOf(db) === 'sqlite' ? 'max' : 'greatest')}(${a}, ${b})`
}
