/**
 * Retrieval (src/main/assistant/knowledge/): the ranking rules on their own (IDF of the question's
 * terms, vectors, reciprocal rank fusion), then the Retriever on a real database of each backend with
 * a real OpenAI-compatible endpoint on loopback giving the vectors: a passage found by text, one found
 * only by meaning, both fused, and text alone when the embeddings fail.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { fuseRanks, normalized, questionTerms, rankByTerms, rankByVector, RRF_K } from '../../../src/main/domain/knowledge-ranking'
import { questionWords, Retriever, type RetrieverDeps } from '../../../src/main/assistant/knowledge/retriever'
import { chunkKnowledge } from '../../../src/main/assistant/knowledge/chunker'
import { ModelClient } from '../../../src/main/assistant/model-client'
import { EndpointGuard } from '../../../src/main/assistant/endpoint-guard'
import { DEFAULT_ASSISTANT, type KnowledgeEntry } from '../../../src/shared/schemas/assistant'
import { silentLogger } from '../../../src/main/logger'
import type { Repositories } from '../../../src/main/store/repos'
import { tempStorage, type TempStorage } from '../../helpers/temp-storage'
import { BACKENDS } from '../../helpers/postgres'
import { startOpenAiFake, type OpenAiFake } from '../../support/openai-fake'

describe('ranking rules', () => {
  it('a rare term outweighs a common one; more terms beat fewer of equal weight', () => {
    // 100 passages; "open" in 40 of them (1..40), "gluten" in 2 (50, 51).
    const hits = [...Array.from({ length: 40 }, (_, i) => ({ term: 0, seq: i + 1 })), { term: 1, seq: 50 }, { term: 1, seq: 51 }, { term: 0, seq: 51 }]
    const ranked = rankByTerms(hits, 100, 200)
    expect(ranked.slice(0, 2)).toEqual([51, 50])
    expect(ranked).toHaveLength(42)
  })

  it('a term that filled its cap is weighed as common, however few it brought', () => {
    const hits = [{ term: 0, seq: 1 }, { term: 0, seq: 2 }, { term: 1, seq: 3 }]
    // Term 0 reached the cap of 2: it counts as in half of the 1,000 passages; term 1 is rare.
    expect(rankByTerms(hits, 1000, 2)[0]).toBe(3)
  })

  it('fuses lists by reciprocal rank: found high in both beats first in one', () => {
    expect(fuseRanks([[1, 2, 3], [2, 9, 1]])).toEqual([2, 1, 9, 3])
    const only = fuseRanks([[7], []])
    expect(only).toEqual([7])
    // The score of the first of a list is 1 / (k + 1).
    expect(RRF_K).toBe(60)
  })

  it('ranks vectors by cosine, skipping another model’s length', () => {
    const q = normalized(Float32Array.from([1, 0]))
    const vectors = [
      { seq: 1, vector: normalized(Float32Array.from([0, 1])) },
      { seq: 2, vector: normalized(Float32Array.from([1, 1])) },
      { seq: 3, vector: normalized(Float32Array.from([1, 0.1])) },
      { seq: 4, vector: Float32Array.from([1, 0, 0]) }
    ]
    expect(rankByVector(q, vectors, 2)).toEqual([3, 2])
  })

  it('takes a question’s words without punctuation, accents or case, and cuts unspaced scripts into 3-character windows', () => {
    expect(questionWords('Do you DELIVER on Sunday? Café, por favor!')).toEqual(['do', 'you', 'deliver', 'on', 'sunday', 'cafe', 'por', 'favor'])
    expect(questionWords('你们几点开门')).toEqual(['你们几', '们几点', '几点开', '点开门'])
    expect(questionTerms(['do', 'deliver', 'sunday', 'deliver', 'you'], 2)).toEqual(['deliver', 'sunday'])
  })
})

describe.each(BACKENDS)('the Retriever on %s', (backend) => {
  let t: TempStorage
  let repos: Repositories
  let fake: OpenAiFake
  let guard: EndpointGuard
  let retriever: Retriever
  const missing: string[] = []

  beforeAll(async () => {
    fake = await startOpenAiFake()
  })
  afterAll(async () => {
    await fake.close()
  })
  beforeEach(async () => {
    t = await tempStorage(backend)
    repos = t.storage.repos
    guard = new EndpointGuard()
    const model = new ModelClient(() => guard.dispatcher())
    retriever = new Retriever({ knowledge: repos.knowledge, model, logger: silentLogger(), onMissingEmbeddings: (id) => missing.push(id) })
    fake.embeddingsStatus = null
    // Meaning as this test defines it: cars and parking on one axis, delivery on another.
    fake.embed = (text) => {
      const s = text.toLowerCase()
      return [/car|park/.test(s) ? 1 : 0, /deliver|courier/.test(s) ? 1 : 0, /hour|open|sunday/.test(s) ? 1 : 0, 0.01]
    }
    const put = async (id: string, title: string, content: string) => {
      const e: KnowledgeEntry = { _id: id, instance_id: 'i1', title, content, source: 'manual', file_name: null, chunks: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }
      await repos.knowledge.create(e, chunkKnowledge(title, content))
    }
    await put('park', 'Parking', 'Free parking behind the shop, entrance from Via Verdi.')
    await put('deliv', 'Delivery', 'A courier brings orders within 5 km; free above 20 euros.')
    await put('hours', 'Opening hours', 'Sunday we open at 18:00.')
    // The vectors, as the embedder would store them.
    const chunks = await repos.knowledge.withoutEmbedding('i1', 'emb', 10)
    await repos.knowledge.setEmbeddings('emb', chunks.map((c) => ({ seq: c.seq, vector: Float32Array.from(fake.embed(`${c.title}\n${c.body}`)) })))
  })
  afterEach(async () => {
    await guard.close()
    await t.close()
  })

  const settings = { ...DEFAULT_ASSISTANT, embedding_model: 'emb', knowledge_chunks: 2 }
  const endpoint = () => ({ baseUrl: fake.baseUrl, apiKey: null })

  it('finds by text without an embedding model', async () => {
    const found = await retriever.find('i1', 'Is it free above 20 euros?', { ...DEFAULT_ASSISTANT, knowledge_chunks: 2 }, endpoint())
    // "free", "above" and "euros" are in the delivery terms; only "free" is in the parking note.
    expect(found.passages.map((p) => p.knowledgeId)).toEqual(['deliv', 'park'])
    expect(found.embedTokens).toBe(0)
  })

  it('finds by meaning what shares no word with the question, fused with the text’s best', async () => {
    const byMeaning = await retriever.find('i1', 'Where do I leave my car?', settings, endpoint())
    expect(byMeaning.passages[0]!.knowledgeId).toBe('park')
    expect(byMeaning.embedTokens).toBeGreaterThan(0)
    const both = await retriever.find('i1', 'Open on Sunday? And where do I put the car?', settings, endpoint())
    expect(both.passages.map((p) => p.knowledgeId).sort()).toEqual(['hours', 'park'])
    expect(missing).toEqual([])
  })

  it('ranks by text alone when the question cannot be embedded, and says why', async () => {
    fake.embeddingsStatus = 500
    const found = await retriever.find('i1', 'Where do I leave my car on Sunday?', settings, endpoint())
    expect(found.passages.map((p) => p.knowledgeId)).toEqual(['hours'])
    expect(found.embedError).toMatch(/HTTP 500/)
  })

  it('finds what was added or changed since the last question (the terms it remembers are dropped)', async () => {
    const wifi = { ...DEFAULT_ASSISTANT, knowledge_chunks: 2 }
    expect((await retriever.find('i1', 'wifi password?', wifi, null)).passages).toEqual([])
    const e: KnowledgeEntry = { _id: 'wifi', instance_id: 'i1', title: 'Wifi', content: 'The password is pizza123.', source: 'manual', file_name: null, chunks: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }
    await repos.knowledge.create(e, chunkKnowledge(e.title, e.content))
    expect((await retriever.find('i1', 'wifi password?', wifi, null)).passages.map((p) => p.body)).toEqual(['The password is pizza123.'])
    // Replaced with the same number of passages: still the new text.
    await repos.knowledge.replace('i1', { ...e, content: 'The password is margherita456.' }, chunkKnowledge(e.title, 'The password is margherita456.'))
    expect((await retriever.find('i1', 'wifi password?', wifi, null)).passages.map((p) => p.body)).toEqual(['The password is margherita456.'])
    await repos.knowledge.remove('i1', 'wifi')
    expect((await retriever.find('i1', 'wifi password?', wifi, null)).passages).toEqual([])
  })

  it('asks the index once a question: the revision and the words it does not remember together, its best passages ranked with the words it does; twice when the knowledge changed; no read after the ranking', async () => {
    const asked: string[][] = []
    const read: number[][] = []
    const brought: string[][] = []
    const real = repos.knowledge
    const knowledge: RetrieverDeps['knowledge'] = {
      chunks: (instanceId, seqs) => {
        read.push([...seqs])
        return real.chunks(instanceId, seqs)
      },
      embeddingState: (...a) => real.embeddingState(...a),
      embeddings: (...a) => real.embeddings(...a),
      termHits: async (instanceId, terms, perTerm, best) => {
        asked.push([...terms])
        const r = await real.termHits(instanceId, terms, perTerm, best)
        brought.push((r.passages ?? []).map((p) => p.knowledgeId))
        return r
      }
    }
    const counted = new Retriever({ knowledge, model: new ModelClient(() => guard.dispatcher()), logger: silentLogger() })
    const text = { ...DEFAULT_ASSISTANT, knowledge_chunks: 2 }
    const ids = async (q: string) => (await counted.find('i1', q, text, null)).passages.map((p) => p.knowledgeId)
    expect(await ids('Is it free above 20 euros?')).toEqual(['deliv', 'park'])
    expect(await ids('Is it free above 20 euros?')).toEqual(['deliv', 'park'])
    expect(await ids('Free parking?')).toEqual(['park', 'deliv'])
    expect(asked).toEqual([['above', 'euros', 'free'], [], ['parking']])
    // Each lookup brought the best two, ranked with the words remembered ("free" for the third):
    // nothing read after the ranking.
    expect(brought).toEqual([['deliv', 'park'], ['deliv', 'park'], ['park', 'deliv']])
    expect(read).toEqual([])
    const e: KnowledgeEntry = { _id: 'free', instance_id: 'i1', title: 'Free', content: 'Free wifi above the bar, euros accepted.', source: 'manual', file_name: null, chunks: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }
    await repos.knowledge.create(e, chunkKnowledge(e.title, e.content))
    asked.length = 0
    // The new passage holds the three words too (a tie: the older first).
    expect(await ids('Is it free above 20 euros?')).toEqual(['deliv', 'free'])
    // What it remembered was of the old knowledge: asked again at the new revision.
    expect(asked).toEqual([[], ['above', 'euros', 'free']])
    // And the passages, brought again at the new revision.
    expect(brought.slice(3)).toEqual([['deliv', 'park'], ['deliv', 'free']])
    expect(read).toEqual([])
    // Without the text search's passages (a search started elsewhere), those not kept are read once.
    retriever.forget('i1')
    const plain = new Retriever({ knowledge: { ...knowledge, termHits: (instanceId, terms, perTerm) => real.termHits(instanceId, terms, perTerm) }, model: new ModelClient(() => guard.dispatcher()), logger: silentLogger() })
    expect((await plain.find('i1', 'Free parking?', text, null, plain.textSearch('i1', 'Free parking?'))).passages.map((p) => p.knowledgeId)).toEqual(['park', 'deliv'])
    expect((await plain.find('i1', 'Free parking?', text, null, plain.textSearch('i1', 'Free parking?'))).passages.map((p) => p.knowledgeId)).toEqual(['park', 'deliv'])
    expect(read.map((r) => r.length)).toEqual([2])
  })

  it('without an embedding model takes the index’s ranking as it is: the same passages as ranking every hit here, also across a change', async () => {
    const words = ['sunday', 'delivery', 'courier', 'parking', 'bread', 'cake', 'coffee', 'gluten', 'vegan', 'oven', 'window', 'order', 'pickup', 'invoice', 'refund']
    let n = 1
    const random = () => ((n = (n * 48271) % 2147483647) / 2147483647)
    const sentence = (k: number) => Array.from({ length: k }, () => words[Math.floor(random() * words.length)]).join(' ')
    for (let i = 0; i < 40; i++) {
      const e: KnowledgeEntry = { _id: `r${i}`, instance_id: 'i1', title: `Entry ${i}`, content: `${sentence(6)}. ${sentence(9)}.`, source: 'manual', file_name: null, chunks: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }
      await repos.knowledge.create(e, chunkKnowledge(e.title, e.content))
    }
    const text = { ...DEFAULT_ASSISTANT, knowledge_chunks: 3 }
    // A retriever that ranks every hit itself (its text search asked for no passages).
    const here = new Retriever({ knowledge: repos.knowledge, model: new ModelClient(() => guard.dispatcher()), logger: silentLogger() })
    const check = async (q: string) => {
      const search = retriever.textSearch('i1', q, text.knowledge_chunks)
      const ranked = (await search).ranked
      const got = (await retriever.find('i1', q, text, null, search)).passages.map((p) => p.seq)
      const want = (await here.find('i1', q, text, null, here.textSearch('i1', q))).passages.map((p) => p.seq)
      expect(got, q).toEqual(want)
      return ranked
    }
    const questions = Array.from({ length: 30 }, () => `${sentence(2 + Math.floor(random() * 4))}?`)
    for (const q of questions.slice(0, 15)) expect(await check(q), q).toBeDefined()
    await repos.knowledge.remove('i1', 'r3')
    await repos.knowledge.remove('i1', 'r17')
    for (const q of questions.slice(15)) await check(q)
  })

  it('asks for the missing vectors when passages have none', async () => {
    const e: KnowledgeEntry = { _id: 'new', instance_id: 'i1', title: 'Wifi', content: 'The password is pizza123.', source: 'manual', file_name: null, chunks: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }
    await repos.knowledge.create(e, chunkKnowledge(e.title, e.content))
    missing.length = 0
    await retriever.find('i1', 'wifi password', settings, endpoint())
    expect(missing).toEqual(['i1'])
  })
})
