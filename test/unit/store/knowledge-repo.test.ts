/**
 * The assistant's repositories (src/main/store/repos/knowledge-repo.ts, assistant-repo.ts), each on a
 * real SQLite file and a real PostgreSQL server, expecting the same results from both: knowledge
 * entries stored with their chunks and found by the chunks' search index (FTS5 trigram / pg_trgm),
 * retrieval's per-term candidates, embeddings, the settings with a key no settings read returns,
 * usage per day, answers per chat, and a customer's export, erasure and an instance's deletion.
 */
import { describe, expect, it } from 'vitest'
import type { KnowledgeEntry } from '../../../src/shared/schemas/assistant'
import { DEFAULT_ASSISTANT } from '../../../src/shared/schemas/assistant'
import type { Repositories } from '../../../src/main/store/repos'
import { tempStorageEach } from '../../helpers/temp-storage'
import { BACKENDS } from '../../helpers/postgres'

const NOW = '2026-11-27T10:00:00.000Z'
const CHAT = '15550001111@s.whatsapp.net'

function entry(id: string, title: string, content: string, fields: Partial<KnowledgeEntry> = {}): KnowledgeEntry {
  return { _id: id, instance_id: 'i1', title, content, source: 'manual', file_name: null, chunks: 0, createdAt: NOW, updatedAt: NOW, ...fields }
}

/** One chunk per paragraph, titled with the entry's title (what the chunker does, simplified). */
function chunksOf(e: KnowledgeEntry) {
  return e.content.split('\n\n').map((body, position) => ({ position, title: e.title, body }))
}

async function put(repos: Repositories, e: KnowledgeEntry) {
  return repos.knowledge.create(e, chunksOf(e))
}

describe.each(BACKENDS)('on %s', (backend) => {
  let repos: Repositories
  tempStorageEach(backend, (fresh) => {
    repos = fresh.storage.repos
  })

  it('stores an entry with its chunks and lists it newest first with its excerpt', async () => {
    const stored = await put(repos, entry('k1', 'Opening hours', 'We open at 9:00 every day.\n\nOn Sundays we open at 11:00.'))
    expect(stored.chunks).toBe(2)
    await put(repos, entry('k2', 'Returns', 'You can return any item within 30 days.', { updatedAt: '2026-11-27T11:00:00.000Z' }))
    expect((await repos.knowledge.owned('i1', 'k1'))?.content).toBe('We open at 9:00 every day.\n\nOn Sundays we open at 11:00.')
    expect(await repos.knowledge.owned('other', 'k1')).toBeUndefined()
    const page = await repos.knowledge.list('i1', { offset: 0, limit: 10 })
    expect(page.total).toBe(2)
    expect(page.items.map((i) => [i.entry._id, i.entry.chunks, i.text])).toEqual([
      ['k2', 1, 'You can return any item within 30 days.'],
      ['k1', 2, 'We open at 9:00 every day.\n\nOn Sundays we open at 11:00.']
    ])
    expect(await repos.knowledge.count('i1')).toBe(3)
  })

  it('q finds entries by a part of a word in any case and accents, through title or passage, with the matching passage', async () => {
    await put(repos, entry('k1', 'Horário', 'Abrimos às 9:00.\n\nAos domingos abrimos às 11:00, exceto feriados.'))
    await put(repos, entry('k2', 'Entregas', 'Entregamos em toda a cidade.'))
    await put(repos, entry('k3', 'Other shop', 'Domingos fechado.', { instance_id: 'i2' }))
    const ids = async (q: string) => (await repos.knowledge.list('i1', { q, offset: 0, limit: 10 })).items.map((i) => i.entry._id)
    expect(await ids('DOMING')).toEqual(['k1'])
    expect(await ids('feriado domingos')).toEqual(['k1'])
    expect(await ids('horario')).toEqual(['k1'])
    expect(await ids('cidade')).toEqual(['k2'])
    expect(await ids('feriados cidade')).toEqual([])
    const hit = await repos.knowledge.list('i1', { q: 'feriado', offset: 0, limit: 10 })
    expect(hit.items[0]!.text).toBe('Aos domingos abrimos às 11:00, exceto feriados.')
    expect(hit.total).toBe(1)
    // Terms shorter than the index's 3 characters are looked for in titles and contents as typed.
    expect(await ids('às')).toEqual(['k1'])
    expect(await ids('AS')).toEqual(['k2'])
  })

  it('replacing an entry replaces its chunks in the search; deleting it removes them', async () => {
    await put(repos, entry('k1', 'Wifi', 'The password is pizza123.'))
    const next = entry('k1', 'Wifi', 'The password is margherita456.', { updatedAt: '2026-11-28T00:00:00.000Z' })
    expect(await repos.knowledge.replace('other', next, chunksOf(next))).toBeUndefined()
    expect((await repos.knowledge.replace('i1', next, chunksOf(next)))?.content).toBe('The password is margherita456.')
    expect((await repos.knowledge.list('i1', { q: 'pizza123', offset: 0, limit: 10 })).total).toBe(0)
    expect((await repos.knowledge.list('i1', { q: 'margherita', offset: 0, limit: 10 })).total).toBe(1)
    expect(await repos.knowledge.revision('i1')).toEqual({ chunks: 1, revision: 2 })
    expect(await repos.knowledge.remove('other', 'k1')).toBe(false)
    expect(await repos.knowledge.remove('i1', 'k1')).toBe(true)
    expect(await repos.knowledge.revision('i1')).toEqual({ chunks: 0, revision: 3 })
    expect((await repos.knowledge.list('i1', { q: 'margherita', offset: 0, limit: 10 })).total).toBe(0)
    expect(await repos.knowledge.count('i1')).toBe(0)
  })

  it('retrieval candidates: per term, up to perTerm chunks of the instance that contain it', async () => {
    await put(repos, entry('k1', 'Delivery', 'We deliver pizza to the whole city.\n\nDelivery is free above 20 euros.\n\nPizza boxes are recycled.'))
    await put(repos, entry('k2', 'Menu', 'Our pizza is baked in a wood oven.'))
    await put(repos, entry('k9', 'Menu', 'Pizza pizza pizza.', { instance_id: 'i2' }))
    const terms = ['deliver', 'sunday', 'pizza']
    const hits = await repos.knowledge.candidates('i1', terms, 2)
    expect(await repos.knowledge.revision('i1')).toEqual({ chunks: 4, revision: 2 })
    const byTerm = (term: string) => hits.filter((h) => h.term === terms.indexOf(term)).map((h) => h.seq)
    // "deliver" is in two chunks (one by its title); "pizza" in three, capped at 2; "sunday" in none.
    expect(hits.every((h) => h.term >= 0 && h.term < terms.length)).toBe(true)
    expect(byTerm('deliver')).toHaveLength(2)
    expect(byTerm('pizza')).toHaveLength(2)
    expect(byTerm('sunday')).toEqual([])
    const chunks = await repos.knowledge.chunks('i1', byTerm('deliver'))
    expect(chunks.map((x) => x.body).sort()).toEqual(['Delivery is free above 20 euros.', 'We deliver pizza to the whole city.'])
    expect(chunks.every((x) => x.knowledgeId === 'k1' && x.title === 'Delivery')).toBe(true)
    // Another instance's chunks are not answered even by seq.
    const theirs = await repos.knowledge.candidates('i2', ['pizza'], 5)
    expect(await repos.knowledge.chunks('i1', theirs.map((h) => h.seq))).toEqual([])
  })

  it('term hits with their best passages: ranked over the terms asked and those the caller knows, best first', async () => {
    await put(repos, entry('k1', 'Delivery', 'We deliver pizza to the whole city.\n\nDelivery is free above 20 euros.\n\nPizza boxes are recycled.'))
    await put(repos, entry('k2', 'Menu', 'Our pizza is baked in a wood oven.'))
    const plain = await repos.knowledge.termHits('i1', ['free', 'wood'], 10)
    expect(plain).not.toHaveProperty('passages')
    const [free, oven] = [0, 1].map((term) => plain.hits.find((h) => h.term === term)!.seq) as [number, number]
    // "free" and "wood" are in one chunk each: tied, the older first.
    const both = await repos.knowledge.termHits('i1', ['free', 'wood'], 10, { known: [], take: 1 })
    expect(both.passages!.map((c) => c.body)).toEqual(['Delivery is free above 20 euros.'])
    // A term the caller remembers ("oven", in the oven's chunk) outweighs the tie.
    const known = await repos.knowledge.termHits('i1', ['free', 'wood'], 10, { known: [[oven]], take: 2 })
    expect(known.passages!.map((c) => c.seq)).toEqual([oven, free])
    expect(known.passages![0]).toEqual({ seq: oven, knowledgeId: 'k2', position: 0, title: 'Menu', body: 'Our pizza is baked in a wood oven.' })
    // Nothing asked (every word remembered): the revision, and the passages of what is known.
    expect(await repos.knowledge.termHits('i1', [], 10, { known: [[free], [free, oven]], take: 5 })).toMatchObject({ chunks: 4, hits: [], passages: [{ seq: free }, { seq: oven }] })
  })

  it('keeps each chunk’s vector with the model that made it; a replaced chunk needs a new one', async () => {
    await put(repos, entry('k1', 'A', 'one\n\ntwo'))
    expect(await repos.knowledge.embeddingState('i1', 'emb')).toMatchObject({ chunks: 2, embedded: 0 })
    const todo = await repos.knowledge.withoutEmbedding('i1', 'emb', 10)
    expect(todo.map((c) => c.body)).toEqual(['one', 'two'])
    await repos.knowledge.setEmbeddings('emb', todo.map((c, i) => ({ seq: c.seq, vector: new Float32Array([i, 0.5, -1.25]) })))
    const state = await repos.knowledge.embeddingState('i1', 'emb')
    expect(state).toMatchObject({ chunks: 2, embedded: 2 })
    const vectors = await repos.knowledge.embeddings('i1', 'emb')
    expect(vectors.map((v) => [...v.vector])).toEqual([
      [0, 0.5, -1.25],
      [1, 0.5, -1.25]
    ])
    // Another model's vectors do not count.
    expect((await repos.knowledge.embeddingState('i1', 'other')).embedded).toBe(0)
    expect(await repos.knowledge.withoutEmbedding('i1', 'other', 10)).toHaveLength(2)
    const next = entry('k1', 'A', 'one\n\nthree')
    await repos.knowledge.replace('i1', next, chunksOf(next))
    const after = await repos.knowledge.embeddingState('i1', 'emb')
    expect(after.embedded).toBe(0)
    expect(after.maxSeq).toBeGreaterThan(state.maxSeq)
  })

  it('the key is kept apart: settings reads never carry it; omitted keeps it, null removes it', async () => {
    expect(await repos.assistant.settings('i1')).toBeNull()
    await repos.assistant.save('i1', { ...DEFAULT_ASSISTANT, model: 'm1' }, { set: 'sk-secret' }, NOW)
    const read = await repos.assistant.settings('i1')
    expect(read).toEqual({ settings: { ...DEFAULT_ASSISTANT, model: 'm1' }, keySet: true })
    expect(JSON.stringify(read)).not.toContain('sk-secret')
    expect(await repos.assistant.key('i1')).toBe('sk-secret')
    await repos.assistant.addUsage('i1', '2026-11-27', { prompt_tokens: 7, completion_tokens: 2 })
    expect(await repos.assistant.callBudget('i1', '2026-11-27')).toEqual({ tokens: 9, key: 'sk-secret' })
    expect(await repos.assistant.callBudget('i1', '2026-11-28')).toEqual({ tokens: 0, key: 'sk-secret' })
    expect(await repos.assistant.callBudget('i2', '2026-11-27')).toEqual({ tokens: 0, key: null })
    await repos.assistant.save('i1', { ...DEFAULT_ASSISTANT, model: 'm2' }, { keep: true }, NOW)
    expect(await repos.assistant.key('i1')).toBe('sk-secret')
    await repos.assistant.save('i1', { ...DEFAULT_ASSISTANT, model: 'm2' }, { set: null }, NOW)
    expect(await repos.assistant.key('i1')).toBeNull()
    expect((await repos.assistant.settings('i1'))?.keySet).toBe(false)
  })

  it('adds up usage per day and counts a chat’s answers since a time', async () => {
    await repos.assistant.addUsage('i1', '2026-11-26', { prompt_tokens: 100, completion_tokens: 20, replies: 1 })
    await repos.assistant.addUsage('i1', '2026-11-27', { prompt_tokens: 300, completion_tokens: 50, replies: 1 })
    await Promise.all([repos.assistant.addUsage('i1', '2026-11-27', { prompt_tokens: 10, completion_tokens: 5, asks: 1 }), repos.assistant.addUsage('i1', '2026-11-27', { fallbacks: 1 })])
    expect(await repos.assistant.tokensOn('i1', '2026-11-27')).toBe(365)
    expect(await repos.assistant.tokensOn('i2', '2026-11-27')).toBe(0)
    expect(await repos.assistant.usage('i1', '2026-11-27')).toEqual([{ day: '2026-11-27', prompt_tokens: 310, completion_tokens: 55, replies: 1, handoffs: 0, fallbacks: 1, asks: 1 }])
    expect(await repos.assistant.usage('i1', '2026-01-01')).toHaveLength(2)

    const reply = { chatId: CHAT, question: 'open?', reply: 'From 9.', outcome: 'answered' as const, model: 'm', prompt_tokens: 1, completion_tokens: 1, ms: 5, sources: [{ id: 'k1', title: 'Hours' }], message_ids: ['M1'] }
    await repos.assistant.addReply('i1', reply, 1_000)
    await repos.assistant.addReply('i1', { ...reply, outcome: 'fallback', error: 'timed out', fallback: 'default' }, 2_000)
    expect(await repos.assistant.repliesSince('i1', CHAT, 1_000)).toBe(2)
    expect(await repos.assistant.repliesSince('i1', CHAT, 1_001)).toBe(1)
    expect(await repos.assistant.repliesSince('i1', CHAT, 0, 'fallback')).toBe(1)
    expect(await repos.assistant.latestReplies('i1', CHAT, 5)).toEqual([
      { ...reply, at: new Date(1_000).toISOString() },
      { ...reply, at: new Date(2_000).toISOString(), outcome: 'fallback', error: 'timed out', fallback: 'default' }
    ])
  })

  it('a customer’s export holds the assistant’s answers to them; erasure deletes them, usage stays', async () => {
    const reply = { chatId: CHAT, question: 'do you deliver?', reply: 'Yes.', outcome: 'answered' as const, model: 'm', prompt_tokens: 3, completion_tokens: 1, ms: 5, sources: [], message_ids: ['M1'] }
    await repos.assistant.addReply('i1', reply, 1_000)
    await repos.assistant.addReply('i1', { ...reply, chatId: '15559990000@s.whatsapp.net' }, 1_000)
    await repos.assistant.addUsage('i1', '2026-11-27', { prompt_tokens: 3, completion_tokens: 1, replies: 1 })
    await repos.botActivity.add({ at: NOW, instance_id: 'i1', chatId: CHAT, messageId: 'M1', matched: 'the assistant', actions: [], assistant: { ...reply, outcome: 'answered' } }, 100)
    expect(await repos.botActivity.ofInstance('i1', 10)).toEqual([expect.objectContaining({ chatId: CHAT, assistant: expect.objectContaining({ model: 'm', outcome: 'answered' }) })])

    const data = await repos.customerData.exportCustomer('i1', '15550001111')
    expect(data.assistantReplies).toEqual([{ ...reply, at: new Date(1_000).toISOString() }])
    const { counts } = await repos.customerData.eraseCustomer('i1', '15550001111', 'owner', NOW, 'e1')
    expect(counts?.assistant_replies).toBe(1)
    expect((await repos.customerData.exportCustomer('i1', '15550001111')).assistantReplies).toEqual([])
    expect(await repos.botActivity.ofInstance('i1', 10)).toEqual([])
    expect(await repos.assistant.repliesSince('i1', '15559990000@s.whatsapp.net', 0)).toBe(1)
    expect(await repos.assistant.tokensOn('i1', '2026-11-27')).toBe(4)
  })

  it('deleting an instance deletes its knowledge, settings, answers and usage', async () => {
    await put(repos, entry('k1', 'Hours', 'Open 9-18.'))
    await put(repos, entry('k2', 'Hours', 'Open 10-20.', { instance_id: 'i2' }))
    await repos.assistant.save('i1', DEFAULT_ASSISTANT, { set: 'k' }, NOW)
    await repos.assistant.addUsage('i1', '2026-11-27', { replies: 1 })
    await repos.assistant.addReply('i1', { chatId: CHAT, question: 'q', reply: 'r', outcome: 'answered', model: 'm', prompt_tokens: 0, completion_tokens: 0, ms: 0, sources: [], message_ids: [] }, 1)
    await repos.customerData.removeInstance('i1')
    expect(await repos.knowledge.count('i1')).toBe(0)
    expect(await repos.knowledge.owned('i1', 'k1')).toBeUndefined()
    expect(await repos.assistant.settings('i1')).toBeNull()
    expect(await repos.assistant.usage('i1', '2000-01-01')).toEqual([])
    expect(await repos.assistant.repliesSince('i1', CHAT, 0)).toBe(0)
    expect((await repos.knowledge.list('i2', { q: 'open', offset: 0, limit: 10 })).total).toBe(1)
  })
})
