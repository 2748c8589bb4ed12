/**
 * What the message search index costs a send, and what bringing it up to date in batches would save
 * (docs/benchmarks.md "What is left of a send's time, and the search index in batches"). The writes
 * of one send as the storage contract asks for them (the message, its conversation, the two
 * acknowledgements of the previous commit's sends: bench/throughput-target.ts `sqlite-floor`), as
 * prepared statements on one connection to a file with the app's schema, 8 sends a durable commit,
 * in four ways:
 *
 * - the index in each commit: the app's trigger (`messages_fts_insert`) adds each message's trigrams
 *   to FTS5's pending terms, which FTS5 writes out as a new segment at every COMMIT;
 * - in batches of 64 or 512 sends: no trigger; once that many messages are past the index's mark, the
 *   commit also adds them with one `INSERT … SELECT … WHERE seq > mark`;
 * - no search index at all (the trigger dropped): what the index costs, by difference.
 *
 * Each on the bench's sentence (the throughput bench's body) and on varied texts (5–12 words of a
 * vocabulary of 5,000, and a number). CPU of this process a send (µs, `process.cpuUsage`), median of
 * 3 rounds of 30,000 sends on a fresh file. Each round checks that its index finds every message
 * (a word's search count against a scan of the texts), so a faster way is never one that indexes less.
 */
import { rmSync } from 'node:fs'
import type { DatabaseSync } from 'node:sqlite'
import { appSchemaConnection, sendWrites } from './app-schema'

const SENDS = 30_000
const PER_COMMIT = 8
const ROUNDS = 3

type Way = { name: string; batch: number | null; index: boolean }
const WAYS: Way[] = [
  { name: 'in each commit (the trigger, as the app does)', batch: null, index: true },
  { name: 'in batches of 64 sends', batch: 64, index: true },
  { name: 'in batches of 512 sends', batch: 512, index: true },
  { name: 'no search index', batch: null, index: false }
]

/** Deterministic texts: the same run gives the same words. */
function textSource(varied: boolean): { next: () => string; probe: string } {
  if (!varied) return { next: () => 'Your order #1234 is ready for pickup.', probe: 'pickup' }
  let seed = 7
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ro', 'ta', 'su', 've', 'pi', 'dor', 'ban', 'qui', 'ster', 'glo', 'ment', 'ing', 'the', 'and', 'or', 'der']
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const vocabulary = Array.from({ length: 5000 }, () => Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => pick(syllables)).join(''))
  return {
    next: () => Array.from({ length: 5 + Math.floor(rnd() * 8) }, () => pick(vocabulary)).join(' ') + ` #${Math.floor(rnd() * 100_000)}`,
    probe: 'banqui'
  }
}

async function round(way: Way, varied: boolean): Promise<number> {
  const { db, dir } = await appSchemaConnection('chatapp-index-bench-')
  try {
    if (way.batch !== null || !way.index) db.exec('DROP TRIGGER messages_fts_insert')
    const cpuUs = writeSends(db, way, textSource(varied))
    if (way.index) checkIndex(db, textSource(varied).probe)
    return cpuUs / SENDS
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The sends' writes; answers the CPU they took (µs). */
function writeSends(db: DatabaseSync, way: Way, texts: { next: () => string }): number {
  const writes = sendWrites(db)
  // The columns the app's trigger indexes, for the messages past the mark.
  const catchUp = db.prepare(
    "INSERT INTO messages_fts (rowid, body, who) SELECT seq, text, coalesce(push_name, '') || ' ' || substr(chat_id, 1, instr(chat_id || '@', '@') - 1) FROM messages WHERE seq > ? ORDER BY seq"
  )
  const chatId = '15550001111@s.whatsapp.net'
  let mark = 0
  let lastSeq = 0
  let previous: string[] = []
  const start = process.cpuUsage()
  for (let n = 0; n < SENDS; n += PER_COMMIT) {
    db.exec('BEGIN')
    const ids: string[] = []
    for (let i = 0; i < PER_COMMIT; i++) {
      const id = `B${(n + i).toString(16).padStart(12, '0')}`
      lastSeq = writes.send(id, chatId, texts.next())
      ids.push(id)
    }
    writes.acknowledge(previous, 'SERVER_ACK')
    writes.acknowledge(previous, 'DELIVERY_ACK')
    const last = n + PER_COMMIT >= SENDS
    if (way.batch !== null && (lastSeq - mark >= way.batch || last)) {
      catchUp.run(mark)
      mark = lastSeq
    }
    db.exec('COMMIT')
    previous = ids
  }
  const used = process.cpuUsage(start)
  return used.user + used.system
}

/** Throws unless a word's search finds exactly the messages whose text holds it. */
function checkIndex(db: DatabaseSync, word: string): void {
  const found = Number((db.prepare('SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?').get(`"${word}"`) as { n: number }).n)
  const holding = Number((db.prepare('SELECT count(*) AS n FROM messages WHERE instr(lower(text), ?) > 0').get(word) as { n: number }).n)
  if (found !== holding || holding === 0) throw new Error(`The search index finds ${found} messages with "${word}"; ${holding} hold it.`)
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Runs the benchmark; prints a markdown table. */
export async function runSearchIndexBench(): Promise<void> {
  console.log(`${SENDS.toLocaleString('en')} sends, ${PER_COMMIT} a commit, median of ${ROUNDS} rounds; CPU µs a send, and its ratio to the index in each commit.\n`)
  console.log('| texts | the search index | CPU µs a send | ratio |')
  console.log('| --- | --- | ---: | ---: |')
  for (const varied of [false, true]) {
    let base = 0
    for (const way of WAYS) {
      const runs: number[] = []
      for (let r = 0; r < ROUNDS; r++) runs.push(await round(way, varied))
      const us = median(runs)
      if (way.batch === null && way.index) base = us
      console.log(`| ${varied ? 'varied' : "the bench's sentence"} | ${way.name} | ${us.toFixed(1)} | ${(us / base).toFixed(2)} |`)
    }
  }
}
