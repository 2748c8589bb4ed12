/**
 * Finding the knowledge passages for a customer's question (docs/assistant.md "Retrieval"): the
 * chunks' search index (FTS5 trigram / pg_trgm) per term, ranked by the terms' IDF; with an embedding
 * model, also the passages closest in meaning, fused by reciprocal rank fusion (./ranking.ts).
 *
 * What the index answers per term is kept in memory while the instance's chunks stay as they were
 * (one count on the chunks' index tells: chunks are only inserted or deleted): customers' questions
 * share most of their words, so a question usually asks the index only for its rarer words. The
 * passages' texts are kept the same way (2 MB, least recently used out): a shop's questions come back
 * to the same few passages, which then cost no read after the search. An
 * instance's vectors are kept the same way; a question then costs one embedding call and a dot
 * product per passage. A failed embedding call never fails the answer: the text search alone ranks.
 */
import { LRUCache } from 'lru-cache'
import type { Logger } from '../../logger'
import { boundedLru } from '../../lru'
import type { KnowledgeRepo, StoredChunk } from '../../store/repos'
import { fold } from '../../store/repos/search-terms'
import type { AssistantSettings } from '../../../shared/schemas/assistant'
import type { ModelClient, ModelEndpoint } from '../model-client'
import { fuseRanks, normalized, questionTerms, rankByTerms, rankByVector } from '../../domain/knowledge-ranking'

/** Passages a term may bring (the bound on a question's cost, whatever the knowledge's size). */
export const PER_TERM = 50
/** Words of a question looked up in the index (each costs a query); the rest must come from memory. */
export const MAX_LOOKUPS = 4
/** Terms whose passages are kept in memory, all instances together. */
const TERM_CACHE = 20_000
/** Characters of passages kept in memory, all instances together (about 4,000 passages of 500). */
const PASSAGE_CACHE_CHARS = 2_000_000
/** Terms of a question looked for: its longest words, which say most (a word costs a query). */
export const MAX_TERMS = 6
/** Passages of each list fused. */
const FUSED_DEPTH = 20
/** The query embedding's time limit (ms), within the answer's. */
const EMBED_TIMEOUT_MS = 10_000

export interface Retrieval {
  /** The best passages, best first. */
  passages: StoredChunk[]
  /** Tokens the question's embedding used (0 without an embedding model). */
  embedTokens: number
  /** Why meaning was not used when it should have been (the embedding call failed). */
  embedError?: string
}

/** What the text search found: per question term (its index), the passages holding it; the instance's passage count and the revision of its chunks it was read at. */
export interface TextHits {
  total: number
  revision: number
  hits: Array<{ term: number; seq: number }>
  /**
   * The `take` best passages by words (fewer when fewer hold any word), best first, as the index
   * ranked them (their text kept in memory at `revision`): present when the search was asked for them
   * and the words remembered that the index ranked with were those of `revision`. Then these are the
   * first of `rankByTerms(hits)`, unless another search of the instance added words to memory
   * meanwhile (a ranking with fewer words).
   */
  ranked?: { take: number; seqs: number[] }
}

/** A kept passage's key: its text never changes at one revision of the instance's chunks. */
function passageKey(instanceId: string, revision: number, seq: number): string {
  return `${instanceId}\n${revision}\n${seq}`
}

/** Scripts written without spaces: a run of them is looked for by its 3-character windows. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u

/** The folded words of a question (punctuation dropped; unspaced scripts cut into 3-character windows). */
export function questionWords(question: string): string[] {
  const words = fold(question)
    .split(/[^\p{L}\p{N}\p{M}]+/u)
    .filter(Boolean)
  return words.flatMap((w) => {
    const chars = [...w]
    if (chars.length <= 3 || !UNSPACED.test(w)) return [w]
    return chars.slice(0, -2).map((_, i) => chars.slice(i, i + 3).join(''))
  })
}

export interface RetrieverDeps {
  knowledge: Pick<KnowledgeRepo, 'termHits' | 'chunks' | 'embeddingState' | 'embeddings'>
  model: Pick<ModelClient, 'embed'>
  logger: Logger
  /** Asked to fill missing vectors in the background (./embedder.ts). */
  onMissingEmbeddings?: (instanceId: string) => void
}

export class Retriever {
  private readonly vectors = new Map<string, { key: string; list: Array<{ seq: number; vector: Float32Array }> }>()
  /** Per `<instance>\n<revision>\n<term>`: the passages the index found for the term. */
  private readonly terms: LRUCache<string, number[]> = boundedLru(TERM_CACHE)
  /** Per `<instance>\n<revision>\n<seq>`: a passage as stored (its text never changes at one revision). */
  private readonly passages = new LRUCache<string, StoredChunk>({ maxSize: PASSAGE_CACHE_CHARS, sizeCalculation: (c) => c.body.length + c.title.length + 64 })
  /** Per instance, the revision of its chunks last seen (what the words to look up are judged by). */
  private readonly revisions = new Map<string, number>()

  constructor(private readonly deps: RetrieverDeps) {}

  /**
   * The `settings.knowledge_chunks` best passages of an instance's knowledge for `question`. The
   * `endpoint` embeds the question (with an embedding model); given as a promise, the text search
   * goes on while it resolves (the caller's budget read), and null then skips the embedding.
   */
  async find(instanceId: string, question: string, settings: AssistantSettings, endpoint: ModelEndpoint | null | Promise<ModelEndpoint | null>, text?: Promise<TextHits>): Promise<Retrieval> {
    const { total, revision, hits, ranked } = await (text ?? this.textSearch(instanceId, question, settings.knowledge_chunks))
    const take = settings.knowledge_chunks
    // Ranked by words alone, the index's ranking is the answer: no ranking again on this thread.
    if (!settings.embedding_model && ranked && ranked.take >= take) {
      return { passages: await this.passagesOf(instanceId, revision, ranked.seqs.slice(0, take)), embedTokens: 0 }
    }
    const byText = rankByTerms(hits, total, PER_TERM).slice(0, FUSED_DEPTH)
    let byMeaning: number[] = []
    let embedTokens = 0
    let embedError: string | undefined
    if (settings.embedding_model && endpoint && total > 0) {
      try {
        const stored = await this.storedVectors(instanceId, settings.embedding_model)
        const to = await endpoint
        if (stored.length > 0 && to) {
          const { vectors, tokens } = await this.deps.model.embed(to, settings.embedding_model, [question], Math.min(EMBED_TIMEOUT_MS, settings.timeout_ms))
          embedTokens = tokens
          byMeaning = rankByVector(normalized(vectors[0]!), stored, FUSED_DEPTH)
        }
      } catch (err) {
        embedError = (err as Error).message
        this.deps.logger.warn({ instanceId, reason: embedError }, 'the assistant ranked knowledge by text only: the question could not be embedded')
      }
    }
    const best = fuseRanks([byText, byMeaning]).slice(0, take)
    return { passages: await this.passagesOf(instanceId, revision, best), embedTokens, ...(embedError ? { embedError } : {}) }
  }

  /** The passages `seqs` in that order, from memory where kept at `revision`, the others read in one call. */
  private async passagesOf(instanceId: string, revision: number, seqs: readonly number[]): Promise<StoredChunk[]> {
    // Usually all kept already: the text search brought its best (see textSearch).
    const key = (seq: number) => passageKey(instanceId, revision, seq)
    const missing = seqs.filter((seq) => !this.passages.has(key(seq)))
    if (missing.length > 0) for (const c of await this.deps.knowledge.chunks(instanceId, missing)) this.passages.set(key(c.seq), c)
    return seqs.flatMap((seq) => this.passages.get(key(seq)) ?? [])
  }

  /**
   * The text search's part of {@link find}, which needs no other settings: it may be started before
   * them (the answer reads them meanwhile) and handed to `find`. The `take` passages it ranks first
   * come with the index's answer and are kept (the passages an answer without embeddings uses: no
   * read after the ranking). Rejects with the storage's error.
   */
  textSearch(instanceId: string, question: string, take = 0): Promise<TextHits> {
    return this.textHits(instanceId, questionTerms(questionWords(question), MAX_TERMS), take)
  }

  /**
   * The passages holding each term (`term` = its index in `terms`), from memory where current, and
   * the instance's passage count. The words missing from memory are asked for together with the
   * chunks' revision, judged by the revision last seen (one round trip); when the revision turns out
   * to have moved on, the words remembered for the old one are asked for in a second. The index ranks
   * with the words remembered and answers the `take` best passages too (kept at the revision read).
   */
  private async textHits(instanceId: string, terms: readonly string[], take: number): Promise<TextHits> {
    const key = (revision: number, t: string) => `${instanceId}\n${revision}\n${t}`
    // At most MAX_LOOKUPS words go to the index (the longest: `terms` is in that order); words seen
    // before come from memory; the others are left out of this question.
    const missingAt = (revision: number | undefined, budget: number) => terms.filter((t) => revision === undefined || !this.terms.has(key(revision, t))).slice(0, budget)
    const lookUp = async (asked: readonly string[], at: number | undefined) => {
      const known = at === undefined ? [] : terms.flatMap((t) => (asked.includes(t) ? [] : [this.terms.get(key(at, t)) ?? []]))
      const r = await this.deps.knowledge.termHits(instanceId, asked, PER_TERM, take > 0 ? { known, take } : undefined)
      const byTerm = asked.map(() => [] as number[])
      for (const h of r.hits) byTerm[h.term]!.push(h.seq)
      asked.forEach((t, i) => this.terms.set(key(r.revision, t), byTerm[i]))
      for (const c of r.passages ?? []) this.passages.set(passageKey(instanceId, r.revision, c.seq), c)
      // The index ranked with the words remembered at `at`: its ranking holds for the hits below
      // only when that is the revision it answered (or nothing was remembered).
      ranked = r.passages && (at === undefined || at === r.revision) ? { take, seqs: r.passages.map((c) => c.seq) } : undefined
      return r
    }
    let ranked: TextHits['ranked']
    const seen = this.revisions.get(instanceId)
    const asked = missingAt(seen, MAX_LOOKUPS)
    let rev = await lookUp(asked, seen)
    if (rev.revision !== seen) {
      const more = missingAt(rev.revision, MAX_LOOKUPS - asked.length)
      if (more.length > 0) rev = await lookUp(more, rev.revision)
    }
    this.revisions.set(instanceId, rev.revision)
    const hits = terms.flatMap((t, term) => (this.terms.get(key(rev.revision, t)) ?? []).map((seq) => ({ term, seq })))
    return { total: rev.chunks, revision: rev.revision, hits, ...(ranked ? { ranked } : {}) }
  }

  /** An instance's vectors of `model`, normalised, from memory while they are current. */
  private async storedVectors(instanceId: string, model: string): Promise<Array<{ seq: number; vector: Float32Array }>> {
    const state = await this.deps.knowledge.embeddingState(instanceId, model)
    if (state.embedded < state.chunks) this.deps.onMissingEmbeddings?.(instanceId)
    const key = `${model}:${state.chunks}:${state.maxSeq}:${state.embedded}`
    const cached = this.vectors.get(instanceId)
    if (cached?.key === key) return cached.list
    const list = (await this.deps.knowledge.embeddings(instanceId, model)).map((v) => ({ seq: v.seq, vector: normalized(v.vector) }))
    this.vectors.set(instanceId, { key, list })
    return list
  }

  /** Forgets an instance's vectors and terms (its knowledge was deleted with it). */
  forget(instanceId: string): void {
    this.vectors.delete(instanceId)
    this.revisions.delete(instanceId)
    for (const k of [...this.terms.keys()]) if (k.startsWith(`${instanceId}\n`)) this.terms.delete(k)
    for (const k of [...this.passages.keys()]) if (k.startsWith(`${instanceId}\n`)) this.passages.delete(k)
  }
}
