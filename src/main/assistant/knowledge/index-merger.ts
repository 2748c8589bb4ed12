/**
 * Keeps the knowledge's search index compact (docs/assistant.md "Retrieval"). Every change of the
 * knowledge writes a small segment of the SQLite FTS5 index, and a term's lookup reads every segment;
 * SQLite merges them only a few at a time as they come. Once changes pause for `delayMs`, the
 * segments are merged into one (KnowledgeRepo.mergeIndex), in slices that each hold the database's
 * writer for about 5 ms (../../store/db/slices.ts), so sends and inbound messages go on meanwhile:
 * a term's lookup then costs about half (at 10,000 passages, 275 → 135 µs; docs/benchmarks.md). A
 * failed merge (a full disk) loses nothing, the index is only less compact: logged, and tried again
 * after the next change. On PostgreSQL the same pause refreshes the chunks' statistics instead
 * (`ANALYZE`), so the lookups' plans fit the knowledge as it now is.
 */
import type { Logger } from '../../logger'
import { inSlices } from '../../store/db/slices'
import type { KnowledgeRepo } from '../../store/repos'

/** How long changes must pause before the index is merged (ms): an import of many entries merges once. */
export const MERGE_DELAY_MS = 2_000

export interface IndexMergerDeps {
  knowledge: Pick<KnowledgeRepo, 'mergeIndex'>
  logger: Logger
  /** Default {@link MERGE_DELAY_MS}. */
  delayMs?: number
}

export class IndexMerger {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> | null = null
  private again = false
  private closed = false

  constructor(private readonly deps: IndexMergerDeps) {}

  /** The knowledge changed: a merge runs once changes pause (after the one under way, if any). */
  kick(): void {
    if (this.closed) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => this.start(), this.deps.delayMs ?? MERGE_DELAY_MS)
    this.timer.unref()
  }

  /** Resolves once no merge waits or runs; a waiting one starts at once (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.timer || this.running) {
      if (this.timer) this.start()
      await this.running
    }
  }

  /** Stops taking changes; a merge under way finishes its slice and stops. */
  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    await this.running
  }

  private start(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.merge().finally(() => {
      this.running = null
      if (this.again && !this.closed) {
        this.again = false
        this.start()
      }
    })
  }

  private async merge(): Promise<void> {
    try {
      // A slice answers `limit` pages while there was work, 0 once the index is one segment.
      await inSlices(async (limit) => (!this.closed && (await this.deps.knowledge.mergeIndex(limit)) ? limit : 0), { first: 32, max: 4096 })
    } catch (err) {
      this.deps.logger.warn({ err }, 'the knowledge search index could not be merged (on PostgreSQL: analyzed); lookups stay slower until the next change tries again')
    }
  }
}
