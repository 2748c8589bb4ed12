/**
 * The workers' lease clock, kept in step with the database server's (docs/design.md §22
 * "Clocks"). A lease's expiry is written by one worker and compared by another, each on its own clock
 * (store/repos/lease-repo.ts takes `now` from its caller): a worker whose clock ran ahead by more than
 * the margin (TTL/5) would claim a lease still held, and two sockets on one credential get both
 * logged out with a 440 (shown by test/wa-e2e/worker-failover.test.ts). Reading the database's time in
 * every lease statement would change each rule's tests; instead each worker measures its offset from
 * the one clock they share — the database server's — and adds it to its own.
 *
 * The offset is the database's time minus the midpoint of the query's round trip on the local clock
 * (Cristian's algorithm); a sample whose round trip exceeds `maxRoundTripMs` is ignored (its error
 * could reach half of it), so a slow query never moves the clock by much.
 */
import type { Clock } from '../../clock'

export class DatabaseAlignedClock implements Clock {
  private offsetMs = 0

  constructor(
    private readonly local: Clock,
    /** The database server's time, epoch ms; null when there is no other clock (SQLite). */
    private readonly databaseNow: () => Promise<number | null>,
    /** Samples slower than this are dropped (ms): the error of one is at most half its round trip. */
    private readonly maxRoundTripMs = 200
  ) {}

  /** The local clock plus the last measured offset, epoch ms (whole, as the local clock's are). */
  now(): number {
    return this.local.now() + this.offsetMs
  }

  /**
   * Measures the offset once; answers it. Never rejects: an unreachable database keeps the last offset
   * (the lease loop has its own answer to a database out of reach).
   */
  async sync(): Promise<number> {
    try {
      const before = this.local.now()
      const remote = await this.databaseNow()
      const after = this.local.now()
      // Whole milliseconds: lease times are bigint columns.
      if (remote !== null && after - before <= this.maxRoundTripMs) this.offsetMs = Math.round(remote - (before + after) / 2)
    } catch {
      // Kept as it was.
    }
    return this.offsetMs
  }
}
