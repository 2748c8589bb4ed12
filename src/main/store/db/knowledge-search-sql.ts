/**
 * The knowledge chunks' search (migration 9), spelled per database as ./search-sql.ts does for the
 * message history: SQLite's FTS5 trigram table `knowledge_fts` (`MATCH`) ↔ PostgreSQL's `pg_trgm`
 * GIN index over `chatapp_knowledge_words(title, body)` (`LIKE '%term%'`). Both find every term of
 * 3+ characters inside words, any case, any accents.
 *
 * Two questions are asked of it:
 * - the knowledge list's `q`: the chunks containing every term ({@link chunkSeqsMatching});
 * - the assistant's retrieval: for each term of a customer's question, up to `perTerm` chunks that
 *   contain it ({@link chunksPerTerm}), one statement for all terms. The caller ranks them (a term's
 *   IDF from how many chunks it found): the cost stays bounded by `perTerm` per term however common a
 *   term is, which a ranked OR query (FTS5's bm25 over every chunk matching any term) is not — 30–80 ms
 *   at 10,000 chunks for a question of common words (docs/assistant.md "Retrieval").
 */
import { sql, type Expression, type Kysely } from 'kysely'
import type { Database } from './schema'
import { dialectOf } from './dialect'
import { allTermsIn, likeLiteral } from './search-sql'
import { ftsQuery, longTerms } from '../repos/search-terms'

/**
 * The `seq` of every chunk of `instanceId` whose title or passage contains every term of 3+
 * characters of `q`: a subquery for `seq IN (...)`. Null when `q` has no such term.
 */
export function chunkSeqsMatching(db: Kysely<Database>, instanceId: string, q: string): Expression<number> | null {
  const terms = longTerms(q)
  if (terms.length === 0) return null
  if (dialectOf(db) === 'sqlite') {
    return sql<number>`(SELECT f.rowid FROM knowledge_fts f CROSS JOIN knowledge_chunks c ON c.seq = f.rowid WHERE knowledge_fts MATCH ${ftsQuery(q)} AND c.instance_id = ${instanceId})`
  }
  return db
    .selectFrom('knowledge_chunks as c')
    .select('c.seq')
    .where('c.instance_id', '=', instanceId)
    .where((eb) => allTermsIn(eb.fn<string>('chatapp_knowledge_words', [eb.ref('c.title'), eb.ref('c.body')]), terms)) as unknown as Expression<number>
}

/**
 * For each of `terms` (folded, 3+ characters: ../repos/search-terms `longTerms`), the `seq` of up to
 * `perTerm` chunks of `instanceId` containing it, as `{term, seq}` rows (`term` = the index in
 * `terms`). One statement; empty for no terms.
 */
export async function chunksPerTerm(db: Kysely<Database>, instanceId: string, terms: readonly string[], perTerm: number): Promise<Array<{ term: number; seq: number }>> {
  if (terms.length === 0) return []
  if (dialectOf(db) === 'sqlite') {
    const parts = terms.map(
      (t, i) =>
        sql`SELECT * FROM (SELECT ${sql.lit(i)} AS term, f.rowid AS seq FROM knowledge_fts f CROSS JOIN knowledge_chunks c ON c.seq = f.rowid
          WHERE knowledge_fts MATCH ${`"${t.replace(/"/g, '""')}"`} AND c.instance_id = ${instanceId} LIMIT ${perTerm})`
    )
    const { rows } = await sql<{ term: number; seq: number }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db)
    return rows
  }
  const parts = terms.map(
    (t, i) =>
      sql`(SELECT ${sql.lit(i)} AS term, c.seq FROM knowledge_chunks c
        WHERE c.instance_id = ${instanceId} AND chatapp_knowledge_words(c.title, c.body) LIKE '%' || chatapp_fold(${likeLiteral(t)}) || '%' LIMIT ${perTerm})`
  )
  const { rows } = await sql<{ term: number; seq: number | string }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db)
  // bigint columns come back as strings from pg.
  return rows.map((r) => ({ term: Number(r.term), seq: Number(r.seq) }))
}

/**
 * Merges up to `pages` pages of the knowledge search index's segments (SQLite FTS5's 'merge' command
 * with a negative count: every level is eligible, so repeated calls leave one segment, as 'optimize'
 * does, a slice at a time; https://www.sqlite.org/fts5.html#the_merge_command). Answers whether it did
 * any work: the command changed at least two rows of the index (the rule that page gives). Always
 * false on PostgreSQL, whose pg_trgm index has no segments to merge. Run inside a write.
 */
export async function mergeKnowledgeIndex(db: Kysely<Database>, pages: number): Promise<boolean> {
  if (dialectOf(db) !== 'sqlite') return false
  if (!Number.isInteger(pages) || pages < 1) throw new RangeError(`pages must be a positive integer, not ${pages}`)
  const changes = async () => Number((await sql<{ n: number }>`SELECT total_changes() AS n`.execute(db)).rows[0]!.n)
  const before = await changes()
  await sql`INSERT INTO knowledge_fts(knowledge_fts, rank) VALUES('merge', ${sql.lit(-pages)})`.execute(db)
  return (await changes()) - before >= 2
}

/**
 * PostgreSQL: brings the chunks' statistics up to date (`ANALYZE`), so the planner plans the lookups
 * for the knowledge as it now is, not as it was before an import ("Populating a Database",
 * https://www.postgresql.org/docs/current/populate.html). Nothing to do on SQLite, whose lookups go
 * through the FTS5 index whatever the statistics.
 */
export async function analyzeKnowledge(db: Kysely<Database>): Promise<void> {
  if (dialectOf(db) === 'sqlite') return
  await sql`ANALYZE knowledge_chunks`.execute(db)
}
