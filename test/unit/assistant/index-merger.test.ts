/**
 * The knowledge search index merged after changes (src/main/assistant/knowledge/index-merger.ts,
 * KnowledgeRepo.mergeIndex): on a real SQLite file, entries written one by one leave segments to merge;
 * the merger merges them in several slices until nothing is left, the search finds what it found
 * before, a full disk loses nothing (logged, merged after the next change), and a core's knowledge
 * change starts it. PostgreSQL has nothing to merge: its chunks are analyzed instead.
 */
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { IndexMerger } from '../../../src/main/assistant/knowledge/index-merger'
import { internalsOf } from '../../../src/main/core'
import { silentLogger, type Logger } from '../../../src/main/logger'
import type { KnowledgeRepo } from '../../../src/main/store/repos'
import type { KnowledgeEntry } from '../../../src/shared/schemas/assistant'
import { makeHarness } from '../../helpers/harness'
import { BACKENDS } from '../../helpers/postgres'
import { tempStorageEach, type TempStorage } from '../../helpers/temp-storage'

const NOW = '2026-11-28T10:00:00.000Z'
const WORDS = ['delivery', 'sunday', 'returns', 'pizza', 'opening', 'gluten', 'parking', 'vouchers', 'birthday', 'catering']

/** Entry `n`, its 5 passages naming a few of WORDS: one transaction each, as the API writes them. */
function entry(n: number): { entry: KnowledgeEntry; chunks: Array<{ position: number; title: string; body: string }> } {
  const chunks = Array.from({ length: 5 }, (_, position) => ({ position, title: `Entry ${n}`, body: `About ${WORDS[(n + position) % WORDS.length]} and ${WORDS[(n * 3 + position) % WORDS.length]}: passage ${position} of entry ${n}.` }))
  return { entry: { _id: `k${n}`, instance_id: 'i1', title: `Entry ${n}`, content: chunks.map((c) => c.body).join('\n\n'), source: 'manual', file_name: null, chunks: 0, createdAt: NOW, updatedAt: NOW }, chunks }
}

async function seed(repo: KnowledgeRepo, count: number): Promise<void> {
  for (let n = 0; n < count; n++) {
    const { entry: e, chunks } = entry(n)
    await repo.create(e, chunks)
  }
}

/** What retrieval finds for every word, in a comparable order. */
async function found(repo: KnowledgeRepo): Promise<Array<{ term: number; seq: number }>> {
  const { hits } = await repo.termHits('i1', WORDS, 1000)
  return [...hits].sort((a, b) => a.term - b.term || a.seq - b.seq)
}

/** A pino logger whose lines are kept. */
function capturing(): { logger: Logger; lines: Array<{ level: number; msg: string }> } {
  const lines: Array<{ level: number; msg: string }> = []
  const logger = pino({ level: 'info' }, new Writable({ write: (line, _e, done) => (lines.push(JSON.parse(String(line))), done()) }))
  return { logger, lines }
}

describe('on SQLite', () => {
  let t: TempStorage
  tempStorageEach('sqlite', (fresh) => {
    t = fresh
  })
  const repo = () => t.storage.repos.knowledge

  it('merges the segments of many changes in several slices until none is left; the search finds the same', async () => {
    await seed(repo(), 120)
    const before = await found(repo())
    expect(before.length).toBeGreaterThan(100)
    const limits: number[] = []
    const knowledge = { mergeIndex: async (pages: number) => (limits.push(pages), t.storage.repos.knowledge.mergeIndex(pages)) }
    const merger = new IndexMerger({ knowledge, logger: silentLogger(), delayMs: 0 })
    merger.kick()
    await merger.idle()
    // More than one slice; the last found nothing left to do.
    expect(limits.length).toBeGreaterThan(1)
    expect(await t.storage.repos.knowledge.mergeIndex(4096)).toBe(false)
    expect(await found(repo())).toEqual(before)
  })

  it('a full disk leaves the index as it was, logged; the next change merges it', async () => {
    await seed(repo(), 60)
    const before = await found(repo())
    const { logger, lines } = capturing()
    const merger = new IndexMerger({ knowledge: t.storage.repos.knowledge, logger, delayMs: 0 })
    await t.storage.database.limitGrowth(0)
    merger.kick()
    await merger.idle()
    await t.storage.database.limitGrowth(null)
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([expect.stringMatching(/knowledge search index could not be merged/)])
    expect(await found(repo())).toEqual(before)
    expect(await t.storage.repos.knowledge.mergeIndex(1)).toBe(true)
    merger.kick()
    await merger.idle()
    expect(await t.storage.repos.knowledge.mergeIndex(4096)).toBe(false)
    expect(await found(repo())).toEqual(before)
  })
})

describe.each(BACKENDS.filter((b) => b !== 'sqlite'))('on %s', (backend) => {
  let t: TempStorage
  tempStorageEach(backend, (fresh) => {
    t = fresh
  })

  it('there is nothing to merge: the chunks’ statistics are brought up to date instead', async () => {
    const analyzed = async () => (await sql<{ at: Date | null }>`SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = 'knowledge_chunks'`.execute(t.storage.database.db)).rows[0]?.at ?? null
    await t.storage.repos.knowledge.create(entry(1).entry, entry(1).chunks)
    expect(await analyzed()).toBeNull()
    expect(await t.storage.repos.knowledge.mergeIndex(64)).toBe(false)
    expect(await analyzed()).toBeInstanceOf(Date)
  })
})

it('a change of a core’s knowledge merges the index once changes pause', async () => {
  const h = await makeHarness()
  try {
    const inst = await h.createInstance()
    for (let n = 0; n < 40; n++) await h.core.knowledge.create(inst, { title: `Entry ${n}`, content: entry(n).entry.content })
    const merger = internalsOf(h.core).indexMerger
    const repo = internalsOf(h.core).storage.repos.knowledge
    await merger.idle()
    expect(await repo.mergeIndex(4096)).toBe(false)
  } finally {
    await h.close()
  }
})
