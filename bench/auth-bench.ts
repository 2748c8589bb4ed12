/**
 * The channel credentials in the database (docs/design.md §20 "Storage"), on a SQLite file in a temp dir:
 *
 * - time per `keys.set` and per `keys.get` as Baileys' own signal repository issues them in a real
 *   1:1 conversation (test/support/signal-conversation.ts: the contact writes, the product decrypts and
 *   answers), on an account already holding a busy desk's keys (2,000 sessions, 800 pre-keys, 200
 *   sender keys, 2,000 LID mappings); the database alone, and behind the library's
 *   makeCacheableSignalKeyStore over the session's LRU (what baileys-session.ts did before);
 * - `keys.get` of one stored session record in a loop, from the database and from a warm cache;
 * - the heap of 20 linked instances' stores: auth state open with those keys stored, and the message
 *   store loaded with 2,000 kept messages each.
 *
 * Times are medians (p90 beside) in ms; a `keys.set` resolves once its transaction is committed and on
 * disk (group commit, synchronous=FULL).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeCacheableSignalKeyStore, proto, type SignalDataSet, type SignalKeyStore } from 'baileys'
import { AuthState } from '../src/main/channel/baileys/auth-state'
import { lruCacheStore } from '../src/main/channel/baileys/cache-store'
import { MessageStore } from '../src/main/channel/baileys/message-store'
import { silentLogger } from '../src/main/logger'
import { openTestChannelStore } from '../test/helpers/channel-store'
import { openSignalConversation } from '../test/support/signal-conversation'

const TURNS = 300
const ACCOUNT = { session: 2000, 'pre-key': 800, 'sender-key': 200, 'lid-mapping': 2000 }
const INSTANCES = 20
const KEPT_MESSAGES = 2000
const GET_SAMPLES = 2000

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * q))]!
}
const fmt = (ms: number) => ms.toFixed(3)

/** A stored session record's size after pruning (~1.4 KB, docs/benchmarks.md "Signal session record"). */
function sessionLike(i: number): unknown {
  return { version: 'v1', _sessions: { [`base${i}`]: { registrationId: i, currentRatchet: { rootKey: Buffer.alloc(32, i % 256) }, blob: Buffer.alloc(1000, i % 256) } } }
}

function accountKeys(): SignalDataSet[] {
  const sets: SignalDataSet[] = []
  for (const [type, n] of Object.entries(ACCOUNT)) {
    for (let from = 0; from < n; from += 250) {
      const entries: Record<string, unknown> = {}
      for (let i = from; i < Math.min(n, from + 250); i++) {
        const id = type === 'session' ? `1555${String(i).padStart(7, '0')}.0` : String(i + 10)
        entries[id] =
          type === 'session' ? sessionLike(i) : type === 'pre-key' ? { public: Buffer.alloc(32, i % 256), private: Buffer.alloc(32, 1) } : type === 'sender-key' ? Buffer.alloc(400, i % 256) : `2012${i}`
      }
      sets.push({ [type]: entries } as SignalDataSet)
    }
  }
  return sets
}

async function fill(keys: SignalKeyStore): Promise<void> {
  for (const set of accountKeys()) await keys.set(set)
}

interface Timings {
  sets: number[]
  gets: number[]
  /** Keys per set, by type: what a "typical" set holds. */
  shapes: Map<string, number>
}

function timed(keys: SignalKeyStore, t: Timings): SignalKeyStore {
  return {
    get: async (type, ids) => {
      const t0 = performance.now()
      const out = await keys.get(type, ids)
      t.gets.push(performance.now() - t0)
      return out
    },
    set: async (data) => {
      const shape = Object.entries(data)
        .map(([type, e]) => `${type}×${Object.keys(e ?? {}).length}`)
        .join(' + ')
      t.shapes.set(shape, (t.shapes.get(shape) ?? 0) + 1)
      const t0 = performance.now()
      await keys.set(data)
      t.sets.push(performance.now() - t0)
    },
    clear: () => keys.clear?.() ?? Promise.resolve()
  }
}

/** One conversation of {@link TURNS} turns on a filled account; the key store's timings and the time per turn. */
async function conversation(cached: boolean): Promise<Timings & { turns: number[] }> {
  const t: Timings = { sets: [], gets: [], shapes: new Map() }
  const conv = await openSignalConversation({
    wrap: async (keys) => {
      await fill(keys)
      const store = cached ? makeCacheableSignalKeyStore(keys, silentLogger() as never, lruCacheStore({ max: 10_000, ttlMs: 5 * 60_000 })) : keys
      return timed(store, t)
    }
  })
  const turns: number[] = []
  try {
    t.sets.length = t.gets.length = 0
    t.shapes.clear()
    for (let i = 0; i < TURNS; i++) {
      const t0 = performance.now()
      await conv.turn()
      turns.push(performance.now() - t0)
    }
  } finally {
    await conv.close()
  }
  return { ...t, turns }
}

/** keys.get of one stored session in a loop: from the database, and through a warm cache. */
async function getLoop(): Promise<{ db: number[]; cache: number[] }> {
  const t = await openTestChannelStore()
  try {
    const auth = await AuthState.open(t.store.auth, 'get-loop')
    await fill(auth.keys)
    const ids = Array.from({ length: GET_SAMPLES }, (_, i) => `1555${String((i * 7919) % ACCOUNT.session).padStart(7, '0')}.0`)
    const db: number[] = []
    for (const id of ids) {
      const t0 = performance.now()
      await auth.keys.get('session', [id])
      db.push(performance.now() - t0)
    }
    const cachedKeys = makeCacheableSignalKeyStore(auth.keys, silentLogger() as never, lruCacheStore({ max: 10_000, ttlMs: 5 * 60_000 }))
    for (const id of ids) await cachedKeys.get('session', [id])
    const cache: number[] = []
    for (const id of ids) {
      const t0 = performance.now()
      await cachedKeys.get('session', [id])
      cache.push(performance.now() - t0)
    }
    return { db, cache }
  } finally {
    await t.close()
  }
}

function heapMb(): number {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}

/** Heap of {@link INSTANCES} instances' open stores, each with a filled account and kept messages. */
async function memory(): Promise<{ perInstanceMb: number; authOnlyMb: number; dbMb: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-auth-mem-'))
  const t = await openTestChannelStore(dir)
  try {
    for (let n = 0; n < INSTANCES; n++) {
      const auth = await AuthState.open(t.store.auth, `inst${n}`)
      await auth.saveCreds()
      await fill(auth.keys)
      const writes: Promise<void>[] = []
      for (let i = 0; i < KEPT_MESSAGES; i++) {
        const msg = proto.WebMessageInfo.fromObject({
          key: { remoteJid: `1555${String(i % 300).padStart(7, '0')}@s.whatsapp.net`, fromMe: true, id: `3EB0${String(n).padStart(2, '0')}${String(i).padStart(16, '0')}` },
          message: { extendedTextMessage: { text: `Your order ${i} is ready. Thanks for shopping with us, see you soon!` } },
          messageTimestamp: 1_760_000_000 + i
        })
        writes.push(t.store.messages.put(`inst${n}`, { id: msg.key!.id!, at: Date.now(), own: true, message: proto.WebMessageInfo.encode(msg).finish() }))
      }
      await Promise.all(writes)
    }
    const before = heapMb()
    const open: Array<{ auth: AuthState; messages: MessageStore }> = []
    for (let n = 0; n < INSTANCES; n++) {
      const auth = await AuthState.open(t.store.auth, `inst${n}`)
      open.push({ auth, messages: new MessageStore(null) })
    }
    const authOnly = heapMb()
    for (const [n, o] of open.entries()) {
      o.messages = new MessageStore({ repo: t.store.messages, instanceId: `inst${n}` })
      await o.messages.load()
    }
    const after = heapMb()
    if (open.some((o) => o.messages.size !== KEPT_MESSAGES)) throw new Error('the message stores did not load every kept message')
    return { perInstanceMb: (after - before) / INSTANCES, authOnlyMb: (authOnly - before) / INSTANCES, dbMb: (await stat(join(dir, 'chatapp.db'))).size / 2 ** 20 }
  } finally {
    await t.close()
    await rm(dir, { recursive: true, force: true })
  }
}

/** Runs the benchmark; prints markdown tables. */
export async function runAuthBench(): Promise<void> {
  const plain = await conversation(false)
  const cached = await conversation(true)
  const shapes = [...plain.shapes].sort((a, b) => b[1] - a[1])
  console.log(`${TURNS} turns (decrypt + answer) on an account holding ${Object.entries(ACCOUNT).map(([k, n]) => `${n} ${k}`).join(', ')}.`)
  console.log(`keys.set mutation sets seen: ${shapes.map(([s, n]) => `${s} (${n})`).join(', ')}\n`)
  console.log('| key store | keys.set median (p90) ms | keys.get median (p90) ms | gets | turn median (p90) ms |')
  console.log('| --- | ---: | ---: | ---: | ---: |')
  for (const [name, r] of [
    ['database (AuthState)', plain],
    ['database behind makeCacheableSignalKeyStore', cached]
  ] as const) {
    console.log(`| ${name} | ${fmt(quantile(r.sets, 0.5))} (${fmt(quantile(r.sets, 0.9))}) | ${fmt(quantile(r.gets, 0.5))} (${fmt(quantile(r.gets, 0.9))}) | ${r.gets.length} | ${fmt(quantile(r.turns, 0.5))} (${fmt(quantile(r.turns, 0.9))}) |`)
  }
  const loop = await getLoop()
  console.log(`\nkeys.get of one stored session (${GET_SAMPLES} reads of ${ACCOUNT.session} records): database ${fmt(quantile(loop.db, 0.5))} ms (p90 ${fmt(quantile(loop.db, 0.9))}), warm cache ${fmt(quantile(loop.cache, 0.5))} ms (p90 ${fmt(quantile(loop.cache, 0.9))})`)
  const mem = await memory()
  console.log(
    `\n${INSTANCES} instances, each with that account's keys and ${KEPT_MESSAGES} kept messages stored (database ${mem.dbMb.toFixed(1)} MB): ` +
      `heap per open auth state ${mem.authOnlyMb.toFixed(3)} MB, per instance with its message store loaded ${mem.perInstanceMb.toFixed(2)} MB`
  )
}
