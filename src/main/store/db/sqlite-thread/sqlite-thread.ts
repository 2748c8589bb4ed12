/**
 * The main thread's handle on one SQLite thread (./thread.ts): posts numbered requests, resolves each
 * answer, and looks after the thread's life.
 *
 * A thread that dies (a crash, an out-of-memory kill of the isolate, a test's injected fault) is a
 * fault like any other: the requests it had not answered reject with {@link SqliteThreadError} (a
 * write of a group commit in flight is then not acknowledged; SQLite rolls its uncommitted
 * transaction back when the file is opened again), the thread is started again on the same file, and
 * the requests that come meanwhile wait for it. {@link generation} counts the starts, so a transaction
 * begun on a thread that has since died is known to be gone. A thread that cannot be started again,
 * or dies more than {@link MAX_RESTARTS} times a minute, leaves the handle failed: every request
 * rejects with the reason, and `onFailed` is told once (the app logs it and stops cleanly).
 *
 * The worker is referenced only while it has requests in flight, so an idle connection never keeps a
 * process alive, and a process never exits under a request it awaits.
 */
import { existsSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { reviveError } from './error-transport'
import type { ThreadOptions, ThreadReady, ThreadReply, ThreadRequest } from './protocol'

/**
 * A thread's young generation (MB): what it allocates is short-lived (a statement's rows on their way
 * to the main thread), and V8's default lets each thread's young generation grow to tens of MB under
 * a long read such as an export, which the process keeps as resident memory afterwards. With 8 MB an
 * export of 100,000 messages grows the process by ~60 MB instead of ~75 (docs/benchmarks.md "A
 * customer's export: memory").
 */
const YOUNG_GENERATION_MB = 8

/** Restarts allowed within {@link RESTART_WINDOW_MS} before the handle gives up. */
const MAX_RESTARTS = 5
const RESTART_WINDOW_MS = 60_000

/** A request's answer: rows, or the changes of a statement without rows. */
export interface ThreadResult {
  rows?: unknown[]
  changes?: number
  lastInsertRowid?: number | bigint
  /** A repository call's answer. */
  value?: unknown
}

/** A request's arguments cannot be copied to a thread (a function inside them): nothing was sent. */
export class NotTransferableError extends Error {
  constructor(cause: unknown) {
    super(`The request cannot be sent to a SQLite thread: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'NotTransferableError'
  }
}

/** The SQLite thread stopped before answering (it died, or it failed to start again). */
export class SqliteThreadError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'SqliteThreadError'
  }
}

let script: { url: URL; execArgv?: string[] } | undefined
/**
 * Where the thread's code is: the build's `sqlite-thread.js` entry beside the bundle that holds this
 * code (out/main, whether this code sits in an entry or in out/main/chunks); from the sources (this
 * module is TypeScript), the script `CHATAPP_SQLITE_THREAD_SCRIPT` names (the tests bundle it once
 * per run: test/support/sqlite-thread-global-setup.ts), else ./thread.ts run through tsx, as the main
 * thread is (a slower start: each thread loads its modules).
 */
/** Flags of the process's that say how modules load (with their values); a worker refuses V8 and process-wide ones such as --expose-gc. */
const MODULE_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader', '--conditions', '-C'])

/** The flags of `argv` (a process.execArgv) a worker thread needs to load modules as its process does. */
export function moduleLoadingArgs(argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const name = arg.split('=')[0]!
    if (!MODULE_FLAGS.has(name)) continue
    if (arg.includes('=')) out.push(arg)
    else if (i + 1 < argv.length) out.push(arg, argv[++i]!)
  }
  return out
}

function threadScript(): { url: URL; execArgv?: string[] } {
  if (script) return script
  const built = import.meta.url.endsWith('.ts') ? process.env.CHATAPP_SQLITE_THREAD_SCRIPT : undefined
  if (built) return (script = { url: pathToFileURL(built) })
  if (import.meta.url.endsWith('.ts')) return (script = { url: new URL('./thread.ts', import.meta.url), execArgv: [...moduleLoadingArgs(process.execArgv), '--import', 'tsx'] })
  for (const rel of ['./sqlite-thread.js', '../sqlite-thread.js']) {
    const url = new URL(rel, import.meta.url)
    if (existsSync(url)) return (script = { url })
  }
  throw new Error(`The SQLite thread's code (sqlite-thread.js) is missing beside ${import.meta.url}: the build is incomplete.`)
}

type Pending = { resolve: (r: ThreadResult) => void; reject: (e: Error) => void }

export interface SqliteThreadOptions extends ThreadOptions {
  /** Names the thread in messages ("writer", "reader 1"). */
  name: string
  /** Told when a thread died and was started again (the cause), for the log. */
  onRestart?: (cause: Error) => void
  /** Told once when the thread cannot be started again: the handle has failed for good. */
  onFailed?: (cause: Error) => void
}

export class SqliteThread {
  private worker!: Worker
  private ready!: Promise<void>
  /** The current thread has opened its connection (requests go straight to it). */
  private isReady = false
  /** The current worker has not exited. */
  private alive = false
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private closing = false
  private failure: Error | null = null
  private readonly restarts: number[] = []
  /** Starts of the thread: grows by one each time a dead thread is replaced. */
  generation = 0

  private constructor(private readonly opts: SqliteThreadOptions) {}

  /**
   * Starts a thread on `opts.file` and resolves once its connection is open and set up. Rejects with
   * the open's error (node:sqlite's fields kept: the caller turns it into a storage error).
   */
  static async open(opts: SqliteThreadOptions): Promise<SqliteThread> {
    const t = new SqliteThread(opts)
    t.start()
    await t.ready
    return t
  }

  /** Requests in flight (the dialect sends a read to the least busy reader). */
  get load(): number {
    return this.pending.size
  }

  private start(): void {
    this.generation++
    this.isReady = false
    const { url, execArgv } = threadScript()
    const worker = new Worker(url, {
      ...(execArgv ? { execArgv } : {}),
      workerData: { file: this.opts.file, readOnly: this.opts.readOnly, statementCache: this.opts.statementCache } satisfies ThreadOptions,
      name: `sqlite ${this.opts.name}`,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB }
    })
    // Referenced while it opens (someone awaits it), then only while requests are in flight.
    this.worker = worker
    this.alive = true
    let uncaught: Error | undefined
    this.ready = new Promise<void>((resolve, reject) => {
      const onReady = (m: ThreadReady): void => {
        if (m.ready) {
          // One answer, or the answers the thread had ready in one turn (./thread.ts).
          worker.on('message', (reply: ThreadReply | ThreadReply[]) => {
            if (Array.isArray(reply)) for (const r of reply) this.answered(r)
            else this.answered(reply)
          })
          if (worker === this.worker) this.isReady = true
          if (this.pending.size === 0 && !this.closing) worker.unref()
          resolve()
        } else reject(reviveError(m.error))
      }
      worker.once('message', onReady)
      // An uncaught error inside the thread ends it ('exit' follows); without a listener it would be
      // thrown on the main thread.
      worker.on('error', (err: unknown) => {
        uncaught = err instanceof Error ? err : new Error(String(err))
        reject(uncaught)
      })
      worker.once('exit', (code) => {
        worker.off('message', onReady)
        reject(new SqliteThreadError(`The SQLite thread (${this.opts.name}) stopped while opening ${this.opts.file} (exit code ${code}).`))
        this.exited(worker, code, uncaught)
      })
    })
    // Requests wait on `ready`; a failed start is reported through them (and `open`'s caller).
    this.ready.catch(() => {})
  }

  private answered(reply: ThreadReply): void {
    const p = this.pending.get(reply.id)
    if (!p) return
    this.pending.delete(reply.id)
    // A closing thread stays referenced until it has exited: close() awaits that exit.
    if (this.pending.size === 0 && !this.closing) this.worker.unref()
    if (reply.ok) p.resolve(reply)
    else p.reject(reviveError(reply.error))
  }

  private exited(worker: Worker, code: number, uncaught: Error | undefined): void {
    if (worker !== this.worker) return
    this.isReady = false
    this.alive = false
    const why = uncaught ? `${uncaught.message}; exit code ${code}` : `exit code ${code}`
    const cause = new SqliteThreadError(`The SQLite thread (${this.opts.name}) of ${this.opts.file} stopped (${why}) before answering; what it had not answered was not done.`, { cause: uncaught })
    for (const p of this.pending.values()) p.reject(cause)
    this.pending.clear()
    if (this.closing || this.failure) return
    const now = Date.now()
    this.restarts.push(now)
    while (this.restarts.length > 0 && this.restarts[0]! < now - RESTART_WINDOW_MS) this.restarts.shift()
    if (this.restarts.length > MAX_RESTARTS) return this.fail(new SqliteThreadError(`The SQLite thread (${this.opts.name}) of ${this.opts.file} died ${this.restarts.length} times within a minute; the database is not used any more.`, { cause }))
    this.start()
    this.ready.then(
      () => this.opts.onRestart?.(cause),
      (err: unknown) => this.fail(new SqliteThreadError(`The SQLite thread (${this.opts.name}) of ${this.opts.file} could not be started again: ${err instanceof Error ? err.message : String(err)}`, { cause: err }))
    )
  }

  private fail(err: Error): void {
    if (this.failure) return
    this.failure = err
    for (const p of this.pending.values()) p.reject(err)
    this.pending.clear()
    this.opts.onFailed?.(err)
  }

  /**
   * Posts `req` (its `id` is given here) and resolves with the thread's answer; rejects with the
   * statement's error, {@link SqliteThreadError} when the thread dies first, or the failure.
   */
  request(req: DistributiveOmit<ThreadRequest, 'id'>): Promise<ThreadResult> {
    if (this.failure) return Promise.reject(this.failure)
    // Sent at once when the thread is up, so requests reach it in the order they were made.
    if (this.isReady) return this.send(req)
    return this.ready.then(() => {
      if (this.failure) throw this.failure
      return this.send(req)
    })
  }

  private send(req: DistributiveOmit<ThreadRequest, 'id'>): Promise<ThreadResult> {
    const id = this.nextId++
    return new Promise<ThreadResult>((resolve, reject) => {
      try {
        // The structured clone happens here: arguments it cannot copy throw at once, nothing sent.
        this.worker.postMessage({ ...req, id })
      } catch (err) {
        return reject(new NotTransferableError(err))
      }
      this.worker.ref()
      this.pending.set(id, { resolve, reject })
    })
  }

  /** Closes the connection (`checkpoint`: fold the WAL into the file first) and ends the thread. */
  async close(checkpoint: boolean): Promise<void> {
    if (this.closing) return
    this.closing = true
    if (this.failure || !this.alive) return
    const worker = this.worker
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    worker.ref()
    try {
      await this.ready
      await this.send({ t: 'close', checkpoint })
    } catch {
      // A thread that died or never opened has nothing left to close.
      await worker.terminate()
    }
    await exited
  }

  /** Test seam: the thread dies as a crash would (see ./protocol.ts `crash`). */
  crash(how: 'exit' | 'throw'): void {
    this.worker.postMessage({ id: 0, t: 'crash', how } satisfies ThreadRequest)
  }
}

/** Omit over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
