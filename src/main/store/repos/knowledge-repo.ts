/**
 * The shop's knowledge (docs/assistant.md "Knowledge"): entries and the chunks they are cut into,
 * written together in one transaction (an entry is never stored without its chunks, nor with stale
 * ones), found by the chunks' search index (../db/knowledge-search-sql.ts) and, with an embedding
 * model, by their vectors. What a chunk is and how answers rank them is the assistant's
 * (src/main/assistant/); this repository stores and finds.
 */
import type { Kysely } from 'kysely'
import type { KnowledgeEntry } from '../../../shared/schemas/assistant'
import type { Database, KnowledgeTable } from '../db/schema'
import { analyzeKnowledge, chunksPerTerm, chunkSeqsMatching, mergeKnowledgeIndex } from '../db/knowledge-search-sql'
import { dialectOf } from '../db/dialect'
import { rankByTerms } from '../../domain/knowledge-ranking'
import { likeAnyCase, likeLiteral } from '../db/search-sql'
import type { Exec } from './exec'
import type { Stored } from './record-table'
import { msToTime, timeToMs } from '../db/times'

/** A chunk to store: its place in the entry, the title searched with it and its text. */
export interface ChunkInput {
  position: number
  title: string
  body: string
}

/** A stored chunk as retrieval reads it. */
export interface StoredChunk {
  seq: number
  knowledgeId: string
  position: number
  title: string
  body: string
}

/** What {@link KnowledgeRepo.termHits} answers: the chunks' count and revision, each term's chunks (`term`: its index), and the best passages when asked. */
export interface TermHits {
  chunks: number
  revision: number
  hits: Array<{ term: number; seq: number }>
  passages?: StoredChunk[]
}

/** One entry of a list page: the entry without its content, and the text its excerpt is made from. */
export interface KnowledgeListRow {
  entry: Omit<KnowledgeEntry, 'content'>
  /** The content's start (no `q`), or the first chunk that matched `q`. */
  text: string
}

/** What the embeddings of an instance's chunks stand at: a cache of them is valid while this is. */
export interface EmbeddingState {
  /** Chunks of the instance. */
  chunks: number
  /** The newest chunk's seq (chunks are replaced, never changed: a new seq means new text). */
  maxSeq: number
  /** Chunks with a vector of the model asked about. */
  embedded: number
}

/** How many characters of an entry's content the list reads for its excerpt. */
const EXCERPT_SOURCE = 400

function entryOf(r: Omit<KnowledgeTable, 'content' | 'excerpt'>): Omit<KnowledgeEntry, 'content'> {
  // Not field for field (rowMap): `chunks` is the chunk_count column, and a list reads no content.
  // eslint-disable-next-line no-restricted-syntax
  return { _id: r.id, instance_id: r.instance_id, title: r.title, source: r.source, file_name: r.file_name, chunks: r.chunk_count, createdAt: msToTime(r.created_at), updatedAt: msToTime(r.updated_at) }
}

/** A float32 vector as stored (the platform's byte order: little-endian on every platform the app runs on). */
export function vectorBytes(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength))
}

/** A stored vector (a copy, so it is aligned whatever the driver's buffer). */
export function vectorOf(bytes: Uint8Array): Float32Array {
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
}

const ENTRY_COLUMNS = ['id', 'instance_id', 'title', 'source', 'file_name', 'chunk_count', 'created_at', 'updated_at'] as const

export class KnowledgeRepo {
  constructor(private readonly x: Exec) {}

  /** Stores a new entry with its chunks (one transaction). */
  async create(entry: KnowledgeEntry, chunks: readonly ChunkInput[]): Promise<Stored<KnowledgeEntry>> {
    await this.x.write(async (trx) => {
      await trx.insertInto('knowledge').values(this.row(entry, chunks.length)).execute()
      await this.insertChunks(trx, entry, chunks)
      await this.bump(trx, entry.instance_id, chunks.length)
    })
    return Object.freeze({ ...entry, chunks: chunks.length })
  }

  /**
   * Replaces an entry of `instanceId` and all its chunks (one transaction); answers it, or undefined
   * when the instance has no entry with that id.
   */
  async replace(instanceId: string, entry: KnowledgeEntry, chunks: readonly ChunkInput[]): Promise<Stored<KnowledgeEntry> | undefined> {
    const done = await this.x.write(async (trx) => {
      const { id, ...rest } = this.row(entry, chunks.length)
      const res = await trx.updateTable('knowledge').set(rest).where('id', '=', id).where('instance_id', '=', instanceId).executeTakeFirst()
      if (Number(res.numUpdatedRows) === 0) return false
      const gone = await trx.deleteFrom('knowledge_chunks').where('knowledge_id', '=', id).executeTakeFirst()
      await this.insertChunks(trx, entry, chunks)
      await this.bump(trx, instanceId, chunks.length - Number(gone.numDeletedRows))
      return true
    })
    return done ? Object.freeze({ ...entry, chunks: chunks.length }) : undefined
  }

  /** Deletes an entry of `instanceId` and its chunks; answers whether it existed. */
  async remove(instanceId: string, id: string): Promise<boolean> {
    return this.x.write(async (trx) => {
      const gone = await trx.deleteFrom('knowledge_chunks').where('knowledge_id', '=', id).where('instance_id', '=', instanceId).executeTakeFirst()
      const res = await trx.deleteFrom('knowledge').where('id', '=', id).where('instance_id', '=', instanceId).executeTakeFirst()
      if (Number(res.numDeletedRows) === 0) return false
      await this.bump(trx, instanceId, -Number(gone.numDeletedRows))
      return true
    })
  }

  /** The entry `id` if it belongs to `instanceId`. */
  async owned(instanceId: string, id: string): Promise<Stored<KnowledgeEntry> | undefined> {
    const r = await this.x.db.selectFrom('knowledge').selectAll().where('id', '=', id).where('instance_id', '=', instanceId).executeTakeFirst()
    return r ? Object.freeze({ ...entryOf(r), content: r.content }) : undefined
  }

  /**
   * A page of the instance's entries, newest change first, with how many there are in all. With `q`,
   * the entries with a chunk containing every term of 3+ characters (the search index); a `q` of
   * shorter terms only is looked for in titles and contents (ASCII letters in any case).
   */
  async list(instanceId: string, page: { q?: string; offset: number; limit: number }): Promise<{ items: KnowledgeListRow[]; total: number }> {
    const db = this.x.db
    const q = page.q?.trim() ?? ''
    const seqs = q ? chunkSeqsMatching(db, instanceId, q) : null
    // Terms too short for the index, as typed: LIKE folds ASCII letters only, on both databases.
    const shortOnly = q !== '' && seqs === null ? q.split(/\s+/u).filter(Boolean) : []
    const base = db
      .selectFrom('knowledge')
      .where('instance_id', '=', instanceId)
      .$if(seqs !== null, (b) => b.where('id', 'in', (eb) => eb.selectFrom('knowledge_chunks').select('knowledge_id').where('seq', 'in', seqs!)))
      .$if(shortOnly.length > 0, (b) =>
        b.where((eb) => eb.and(shortOnly.map((t) => eb.or([likeAnyCase(db, 'title', `%${likeLiteral(t)}%`), likeAnyCase(db, 'content', `%${likeLiteral(t)}%`)]))))
      )
    const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    const rows = await base
      .select([...ENTRY_COLUMNS, 'excerpt'])
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .offset(page.offset)
      .limit(page.limit)
      .execute()
    const firstMatch = new Map<string, string>()
    if (seqs !== null && rows.length > 0) {
      const hits = await db
        .selectFrom('knowledge_chunks')
        .select(['knowledge_id', 'body'])
        .where('knowledge_id', 'in', rows.map((r) => r.id))
        .where('seq', 'in', seqs)
        .orderBy('knowledge_id')
        .orderBy('position')
        .execute()
      for (const h of hits) if (!firstMatch.has(h.knowledge_id)) firstMatch.set(h.knowledge_id, h.body)
    }
    return { items: rows.map((r) => ({ entry: entryOf(r), text: firstMatch.get(r.id) ?? r.excerpt })), total: Number(n) }
  }

  /**
   * For each of `terms` (folded, 3+ characters: ./search-terms `longTerms`), up to `perTerm` chunks of
   * the instance containing it (`term` = its index in `terms`): what retrieval ranks.
   */
  async candidates(instanceId: string, terms: readonly string[], perTerm: number): Promise<Array<{ term: number; seq: number }>> {
    return chunksPerTerm(this.x.db, instanceId, terms, perTerm)
  }

  /**
   * {@link revision} and {@link candidates} in one call (one round trip to a reader thread): where the
   * instance's chunks stand, and up to `perTerm` chunks per term of `terms` (none asked: no hits).
   *
   * With `best`, also the `best.take` passages ranked first by the question's terms
   * (../../domain/knowledge-ranking.ts `rankByTerms`) over these hits and `best.known` (the chunks
   * holding each of the question's other terms, as the caller remembers them), best first: the
   * passages an answer usually needs, without a read after the ranking.
   */
  async termHits(instanceId: string, terms: readonly string[], perTerm: number, best?: { known: ReadonlyArray<readonly number[]>; take: number }): Promise<TermHits> {
    const [rev, hits] = await Promise.all([this.revision(instanceId), terms.length > 0 ? this.candidates(instanceId, terms, perTerm) : []])
    if (!best || best.take <= 0) return { ...rev, hits }
    const all = [...hits, ...best.known.flatMap((seqs, i) => seqs.map((seq) => ({ term: terms.length + i, seq })))]
    const first = rankByTerms(all, rev.chunks, perTerm).slice(0, best.take)
    const bySeq = new Map((await this.chunks(instanceId, first)).map((c) => [c.seq, c]))
    return { ...rev, hits, passages: first.flatMap((seq) => bySeq.get(seq) ?? []) }
  }

  /**
   * Merges up to `pages` pages of the chunks' search index into fewer segments, for every instance at
   * once (one index); whether there was work to do. Each knowledge change adds a segment that every
   * term lookup then reads, and SQLite merges them only a few at a time: merged into one, a lookup
   * costs about half (docs/assistant.md "Retrieval").
   *
   * PostgreSQL's pg_trgm index has no segments: there the chunks' statistics are brought up to date
   * instead (../db/knowledge-search-sql.ts `analyzeKnowledge`), and the answer is false. Until
   * autovacuum's own analyze comes (up to a minute or more later), the planner judges the lookups by
   * the table as it was: at 10,000 new passages 3–4× slower (docs/benchmarks.md).
   */
  async mergeIndex(pages: number): Promise<boolean> {
    if (dialectOf(this.x.db) !== 'sqlite') {
      await analyzeKnowledge(this.x.db)
      return false
    }
    return this.x.write((trx) => mergeKnowledgeIndex(trx, pages))
  }

  /**
   * Where an instance's chunks stand: how many, and a counter every change bumps (written in the
   * change's transaction), so a cache of search results is valid while this is. One read by key.
   */
  async revision(instanceId: string): Promise<{ chunks: number; revision: number }> {
    const r = await this.x.db.selectFrom('knowledge_revisions').select(['chunks', 'revision']).where('instance_id', '=', instanceId).executeTakeFirst()
    return { chunks: Number(r?.chunks ?? 0), revision: Number(r?.revision ?? 0) }
  }

  /**
   * How many chunks an instance has: counted on the chunks' index, never from the entries' rows, whose
   * large contents SQLite would read through to reach a column after them (2 ms at 200 entries).
   */
  async count(instanceId: string): Promise<number> {
    const { n } = await this.x.db.selectFrom('knowledge_chunks').select((eb) => eb.fn.countAll<number>().as('n')).where('instance_id', '=', instanceId).executeTakeFirstOrThrow()
    return Number(n)
  }

  /** The chunks `seqs` (any order) of `instanceId`. */
  async chunks(instanceId: string, seqs: readonly number[]): Promise<StoredChunk[]> {
    if (seqs.length === 0) return []
    const rows = await this.x.db
      .selectFrom('knowledge_chunks')
      .select(['seq', 'knowledge_id', 'position', 'title', 'body'])
      .where('instance_id', '=', instanceId)
      .where('seq', 'in', [...seqs])
      .execute()
    return rows.map((r) => ({ seq: Number(r.seq), knowledgeId: r.knowledge_id, position: Number(r.position), title: r.title, body: r.body }))
  }

  /** Where an instance's embeddings of `model` stand (see {@link EmbeddingState}). */
  async embeddingState(instanceId: string, model: string): Promise<EmbeddingState> {
    const r = await this.x.db
      .selectFrom('knowledge_chunks')
      .select((eb) => [
        eb.fn.countAll<number>().as('chunks'),
        eb.fn.max<number | null>('seq').as('max_seq'),
        eb.fn.sum<number | null>(eb.case().when('embedding_model', '=', model).then(1).else(0).end()).as('embedded')
      ])
      .where('instance_id', '=', instanceId)
      .executeTakeFirstOrThrow()
    return { chunks: Number(r.chunks), maxSeq: Number(r.max_seq ?? 0), embedded: Number(r.embedded ?? 0) }
  }

  /** Every vector of `model` of an instance's chunks. */
  async embeddings(instanceId: string, model: string): Promise<Array<{ seq: number; vector: Float32Array }>> {
    const rows = await this.x.db
      .selectFrom('knowledge_chunks')
      .select(['seq', 'embedding'])
      .where('instance_id', '=', instanceId)
      .where('embedding_model', '=', model)
      .where('embedding', 'is not', null)
      .execute()
    return rows.map((r) => ({ seq: Number(r.seq), vector: vectorOf(r.embedding!) }))
  }

  /** Up to `limit` chunks of an instance without a vector of `model`, oldest first. */
  async withoutEmbedding(instanceId: string, model: string, limit: number): Promise<StoredChunk[]> {
    const rows = await this.x.db
      .selectFrom('knowledge_chunks')
      .select(['seq', 'knowledge_id', 'position', 'title', 'body'])
      .where('instance_id', '=', instanceId)
      .where((eb) => eb.or([eb('embedding_model', 'is', null), eb('embedding_model', '!=', model)]))
      .orderBy('seq')
      .limit(limit)
      .execute()
    return rows.map((r) => ({ seq: Number(r.seq), knowledgeId: r.knowledge_id, position: Number(r.position), title: r.title, body: r.body }))
  }

  /** Stores the vectors of chunks (one transaction); a chunk deleted meanwhile is skipped. */
  async setEmbeddings(model: string, vectors: ReadonlyArray<{ seq: number; vector: Float32Array }>): Promise<void> {
    if (vectors.length === 0) return
    await this.x.write(async (trx) => {
      for (const v of vectors) await trx.updateTable('knowledge_chunks').set({ embedding_model: model, embedding: vectorBytes(v.vector) }).where('seq', '=', v.seq).execute()
    })
  }

  /** Counts `delta` chunks more (or fewer) for the instance and bumps its revision, in `trx`. */
  private async bump(trx: Kysely<Database>, instanceId: string, delta: number): Promise<void> {
    await trx
      .insertInto('knowledge_revisions')
      .values({ instance_id: instanceId, chunks: Math.max(0, delta), revision: 1 })
      .onConflict((oc) => oc.column('instance_id').doUpdateSet((eb) => ({ chunks: eb(eb.ref('knowledge_revisions.chunks'), '+', delta), revision: eb(eb.ref('knowledge_revisions.revision'), '+', 1) })))
      .execute()
  }

  private row(entry: KnowledgeEntry, chunkCount: number): KnowledgeTable {
    // Not field for field (rowMap): the chunk count is computed, the excerpt derived from the content.
    return {
      // eslint-disable-next-line no-restricted-syntax
      id: entry._id,
      instance_id: entry.instance_id,
      title: entry.title,
      source: entry.source,
      file_name: entry.file_name,
      chunk_count: chunkCount,
      created_at: timeToMs(entry.createdAt),
      updated_at: timeToMs(entry.updatedAt),
      excerpt: entry.content.slice(0, EXCERPT_SOURCE),
      content: entry.content
    }
  }

  private async insertChunks(trx: Kysely<Database>, entry: KnowledgeEntry, chunks: readonly ChunkInput[]): Promise<void> {
    // Several hundred rows a statement keeps a large import to a few statements (SQLite allows 32,766 variables).
    for (let i = 0; i < chunks.length; i += 500) {
      await trx
        .insertInto('knowledge_chunks')
        .values(chunks.slice(i, i + 500).map((c) => ({ instance_id: entry.instance_id, knowledge_id: entry._id, position: c.position, title: c.title, body: c.body, embedding_model: null, embedding: null })))
        .execute()
    }
  }
}

