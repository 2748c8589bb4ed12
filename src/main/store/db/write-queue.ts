/**
 * Group commit: every write of the app goes through one queue that gathers the writes asked for
 * while the event loop turns and commits them in ONE transaction. A durable commit costs a WAL fsync
 * (~160 µs on this disk: 6,300 one-row commits a second); a batch of concurrent sends pays it once.
 * The technique is the one databases use for their own logs (PostgreSQL's commit_delay, SQLite's
 * docs on "transactions per second"); here the queue waits only for the I/O callbacks already due
 * (`setImmediate`), never a timer, so a lone write is not delayed.
 *
 * Each write is a function of the transaction that only runs queries (no other I/O: the transaction
 * holds the only connection meanwhile), so it can be run again. One that throws (a constraint, a bad
 * input) rejects alone and the others commit: the batch first runs without savepoints, and only when
 * a write throws is it rolled back and run again with a savepoint around each write. Savepoints on
 * every write cost a statement pair each (a round trip each on PostgreSQL) and, on SQLite, make
 * FTS5 write its pending index terms out as a new segment at each one (fts5_main.c,
 * `fts5SavepointMethod` → `sqlite3Fts5FlushToDisk`) instead of once per commit. A write's promise
 * resolves after the COMMIT, so nothing is reported stored before it is on disk; when the commit
 * itself fails (a full disk) every write of the batch rejects and none is stored.
 */
import type { Kysely, Transaction } from 'kysely'

/** A write: queries on the batch's transaction; its result is handed back after the commit. */
export type WriteWork<DB, T> = (trx: Transaction<DB>) => Promise<T>

interface Job<DB> {
  work: WriteWork<DB, unknown>
  resolve: (value: unknown) => void
  reject: (err: unknown) => void
}

/** Writes gathered per transaction at most (a bound on how long readers wait for one commit). */
const MAX_BATCH = 512

export class WriteQueue<DB> {
  private queue: Job<DB>[] = []
  private scheduled = false
  private flushing: Promise<void> | null = null
  private closed = false
  /**
   * Transactions committed and the writes they stored; `replays`: batches run again with savepoints
   * after one of their writes threw (diagnostics, benchmarks, tests).
   */
  readonly stats = { commits: 0, writes: 0, replays: 0 }

  /**
   * `gate`: taken around each batch's transaction when the connection is shared with transactions
   * driven from elsewhere (the writer's thread serves the main thread's too: ./sqlite-thread/host.ts).
   */
  constructor(
    private readonly db: Kysely<DB>,
    private readonly gate?: { acquire(): Promise<() => void> }
  ) {}

  /**
   * Runs `work` in the next batch's transaction; resolves with its result once committed. Rejects
   * with what `work` threw (its changes rolled back), or with the commit's error (nothing of the
   * batch stored). Throws once the queue is closed.
   */
  run<T>(work: WriteWork<DB, T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The database is closed.'))
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject })
      this.schedule()
    })
  }

  /** Waits for every queued write; later writes are refused. */
  async close(): Promise<void> {
    this.closed = true
    for (;;) {
      if (this.flushing) await this.flushing
      else if (this.queue.length > 0) this.startFlush()
      else if (this.scheduled) await new Promise((r) => setImmediate(r))
      else return
    }
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.startFlush()
    })
  }

  /** Commits the queue, batch after batch, unless a flush runs already or there is nothing to do. */
  private startFlush(): void {
    if (this.flushing || this.queue.length === 0) return
    // `.finally` runs after this assignment even when the loop ends at once (an async function's
    // promise settles in a later microtask), so `flushing` is never left set to a settled promise.
    const run: Promise<void> = this.flushLoop().finally(() => {
      if (this.flushing === run) this.flushing = null
      // Writes queued during the last commit and not picked up by its loop.
      if (this.queue.length > 0) this.schedule()
    })
    this.flushing = run
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0) await this.commit(this.queue.splice(0, MAX_BATCH))
  }

  private async commit(jobs: Job<DB>[]): Promise<void> {
    const release = await this.gate?.acquire()
    try {
      await this.commitBatch(jobs)
    } finally {
      release?.()
    }
  }

  private async commitBatch(jobs: Job<DB>[]): Promise<void> {
    const failed = await this.tryBatch(jobs)
    if (failed === null) return
    // One write threw: it rejects alone, and the others run again, each in a savepoint.
    jobs[failed.index]!.reject(failed.error)
    const others = jobs.filter((_, i) => i !== failed.index)
    if (others.length === 0) return
    this.stats.replays++
    await this.commitWithSavepoints(others)
  }

  /**
   * Runs `jobs` in one transaction without savepoints and settles them after the commit. When one
   * throws, rolls everything back, settles nothing, and answers which one and its error; a failed
   * BEGIN or COMMIT rejects every write (nothing of the batch stored).
   */
  private async tryBatch(jobs: Job<DB>[]): Promise<{ index: number; error: unknown } | null> {
    let trx
    try {
      trx = await this.db.startTransaction().execute()
    } catch (err) {
      for (const j of jobs) j.reject(err)
      return null
    }
    const values: unknown[] = []
    for (let i = 0; i < jobs.length; i++) {
      try {
        values.push(await jobs[i]!.work(trx))
      } catch (error) {
        await trx.rollback().execute().catch(() => {})
        return { index: i, error }
      }
    }
    try {
      await trx.commit().execute()
    } catch (err) {
      await trx.rollback().execute().catch(() => {})
      for (const j of jobs) j.reject(err)
      return null
    }
    this.stats.commits++
    this.stats.writes += jobs.length
    jobs.forEach((job, i) => job.resolve(values[i]))
    return null
  }

  /** Runs `jobs` in one transaction, each in a savepoint of its own, and settles each after the commit. */
  private async commitWithSavepoints(jobs: Job<DB>[]): Promise<void> {
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = []
    let trx
    try {
      trx = await this.db.startTransaction().execute()
    } catch (err) {
      for (const j of jobs) j.reject(err)
      return
    }
    try {
      for (const job of jobs) {
        const sp = await trx.savepoint('w').execute()
        try {
          const value = await job.work(sp)
          await sp.releaseSavepoint('w').execute()
          results.push({ ok: true, value })
        } catch (error) {
          // A full disk or an I/O error makes SQLite roll the whole transaction back by itself
          // (https://www.sqlite.org/lang_transaction.html): then the savepoint is gone and the
          // batch fails as one, with this write's error.
          await sp.rollbackToSavepoint('w').execute().catch(() => {
            throw error
          })
          results.push({ ok: false, error })
        }
      }
      await trx.commit().execute()
      this.stats.commits++
      this.stats.writes += jobs.length
    } catch (err) {
      await trx.rollback().execute().catch(() => {})
      // A single write's own error, or the commit's: nothing of the batch was stored.
      for (const j of jobs) j.reject(err)
      return
    }
    jobs.forEach((job, i) => {
      const r = results[i]!
      if (r.ok) job.resolve(r.value)
      else job.reject(r.error)
    })
  }
}
