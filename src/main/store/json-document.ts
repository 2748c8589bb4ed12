/**
 * One lowdb-backed JSON document with group commit.
 *
 * Mutations apply to memory at once and in call order; `commit()` resolves when a disk write that
 * started after the call has finished. Writes never overlap, and a burst of N mutations costs a
 * handful of writes instead of N (each waiter is released by the first write that includes its
 * change). An acknowledged mutation is therefore on disk.
 */
import { Low } from 'lowdb'
import { AtomicJsonFile } from './atomic-json-file'

export class JsonDocument<T extends object> {
  private readonly low: Low<T>
  private waiting: Array<{ resolve: () => void; reject: (err: unknown) => void }> = []
  private flushing: Promise<void> | null = null

  private constructor(
    readonly file: string,
    defaults: T
  ) {
    this.low = new Low<T>(new AtomicJsonFile<T>(file), defaults)
  }

  /**
   * Opens (or creates) the document. Missing keys are filled from `defaults` so older files gain new
   * collections. Throws DataFileError when the file is unreadable.
   */
  static async open<T extends object>(file: string, defaults: T): Promise<JsonDocument<T>> {
    const doc = new JsonDocument<T>(file, structuredClone(defaults))
    await doc.low.read()
    doc.low.data = { ...structuredClone(defaults), ...doc.low.data }
    return doc
  }

  /** The live data. Mutate only inside {@link update}. */
  get data(): T {
    return this.low.data
  }

  /** Applies `fn` to the data now, then resolves with its result once the change is on disk. */
  async update<R>(fn: (data: T) => R): Promise<R> {
    const result = fn(this.low.data)
    await this.commit()
    return result
  }

  /** Resolves when every change made before the call is on disk. */
  commit(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject })
      if (!this.flushing) this.flushing = this.flush()
    })
  }

  /** Waits for pending writes (used at shutdown). */
  async close(): Promise<void> {
    while (this.flushing) await this.flushing
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting
        this.waiting = []
        try {
          await this.low.write()
          for (const w of batch) w.resolve()
        } catch (err) {
          for (const w of batch) w.reject(err)
        }
      }
    } finally {
      this.flushing = null
    }
  }
}
