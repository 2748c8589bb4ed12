/**
 * The database's repositories as the main thread sees them on SQLite: the same objects and methods
 * (services do not change), each call run whole in a SQLite thread (./host.ts), one round trip
 * whatever statements it takes (docs/storage.md "Threads"):
 *
 * - a read-only method (./read-calls.ts) goes to the least busy reader; every other call is posted to
 *   the writer at once, so writes reach it in the order they were made (a reply is logged after the
 *   message it answers). A listed read that writes after all is refused by its reader
 *   ({@link ReadOnlyCallError}, or SQLite's SQLITE_READONLY) before it changed anything, and runs on
 *   the writer instead, as every later call of that method;
 * - a call that takes a function (an immer recipe, a decision on what it read; or objects carrying
 *   one, found when the copy to the thread fails before anything is sent) runs on this thread, over
 *   the same SQLite threads statement by statement (./thread-dialect.ts): a function cannot cross to
 *   another thread;
 * - an async generator (an export's pages) runs here too, each page's query in a thread.
 *
 * What a call answers is copied across (the structured clone): records come back as plain objects.
 */
import type { DataRepositories } from '../../repos/data-repositories'
import { sqliteCode } from '../errors'
import { ReadOnlyCallError } from './error-transport'
import { READ_CALLS, readCallKeys, type ReadCalls } from './read-calls'
import { NotTransferableError, type SqliteThread } from './sqlite-thread'
import type { SqliteThreads } from './thread-dialect'

/** SQLITE_READONLY: a reader was asked to write. */
const SQLITE_READONLY = 8

function refusedAsWrite(err: unknown): boolean {
  return err instanceof ReadOnlyCallError || sqliteCode(err) === SQLITE_READONLY
}

/** A function, or an options object carrying one (`{ onDeleted }`): it cannot cross to a thread. */
function holdsFunction(arg: unknown): boolean {
  if (typeof arg === 'function') return true
  return arg !== null && typeof arg === 'object' && !Array.isArray(arg) && Object.values(arg).some((v) => typeof v === 'function')
}

/** Runs a call here when its arguments turned out not to be copyable (a function deeper inside them): nothing was sent. */
function hereIfNotTransferable<T>(sent: Promise<T>, here: () => unknown): Promise<unknown> {
  return sent.catch((err: unknown) => {
    if (err instanceof NotTransferableError) return here()
    throw err
  })
}

const AsyncGeneratorFunction = (Object.getPrototypeOf(async function* () {}) as { constructor: typeof Function }).constructor

/**
 * `local` (the repositories over the main thread's per-statement path) with their data calls sent to
 * `threads` (see the module doc).
 */
export function threadedRepositories(local: DataRepositories, threads: SqliteThreads, readCalls: ReadCalls = READ_CALLS): DataRepositories {
  /** `repo.method` of the calls sent to a reader. */
  const reads = readCallKeys(readCalls)
  let next = 0
  const reader = (): SqliteThread => {
    const { readers } = threads
    let best = readers[next++ % readers.length]!
    for (const r of readers) if (r.load < best.load) best = r
    return best
  }
  const call = async (thread: SqliteThread, repo: string, method: string, args: unknown[]): Promise<unknown> => (await thread.request({ t: 'call', repo, method, args })).value

  const out: Record<string, unknown> = {}
  for (const [repo, target] of Object.entries(local) as Array<[string, object]>) {
    const methods = new Map<PropertyKey, unknown>()
    out[repo] = new Proxy(target, {
      get(obj, prop, receiver) {
        const value: unknown = Reflect.get(obj, prop, receiver)
        if (typeof value !== 'function' || typeof prop !== 'string' || prop === 'constructor') return value
        if (value instanceof AsyncGeneratorFunction) return (value as (...a: unknown[]) => unknown).bind(obj)
        const known = methods.get(prop)
        if (known) return known
        const key = `${repo}.${prop}`
        const fn = (...args: unknown[]): unknown => {
          const here = () => (value as (...a: unknown[]) => unknown).apply(obj, args)
          if (args.some(holdsFunction)) return here()
          if (!reads.has(key) || threads.readers.length === 0) return hereIfNotTransferable(call(threads.writer, repo, prop, args), here)
          const onReader = call(reader(), repo, prop, args).catch((err: unknown) => {
            if (!refusedAsWrite(err)) throw err
            reads.delete(key)
            return call(threads.writer, repo, prop, args)
          })
          return hereIfNotTransferable(onReader, here)
        }
        methods.set(prop, fn)
        return fn
      }
    })
  }
  return out as unknown as DataRepositories
}
