/**
 * The webhook outbox (docs/design.md §11): the `webhook_deliveries` table
 * (../store/repos/webhook-delivery-repo.ts) and the dispatcher's working set over it, the pending
 * deliveries by endpoint (their URL) in queue order, loaded from the table at open, so the dispatcher
 * fills each endpoint's slots without a query per request.
 *
 * The table is the truth; the working set follows it:
 * - an added delivery joins the working set only once its row is committed: the dispatcher never
 *   sends what a crash could lose, and a restart finds every delivery not yet delivered;
 * - an attempt's outcome changes the working set at once (the request's slot is free and the delivery
 *   is not picked again) and the table soon after, gathered: a lone outcome is written at once, but
 *   outcome writes follow each other at least {@link OUTCOME_WRITE_GAP_MS} apart, the outcomes of that
 *   time going in one write (one grouped UPDATE in the database's writer, beside the sends' own
 *   writes). Writing the answers of each turn on their own (a few each, at most 16 per receiver) cost
 *   the one writer a job and a share of a commit per turn; nobody waits for an outcome's write but
 *   the next start, which sends again what a crash took back (at-least-once).
 * - a write that fails puts the working set back as it was, so the delivery is pending again and is
 *   sent once more.
 */
import type { DeliveryOutcome, RecordedOutcome, RequeueResult, WebhookDeliveryRepo } from '../store/repos/webhook-delivery-repo'
import type { WebhookDelivery } from '../../shared/schemas/webhooks'

/**
 * Least time between two outcome writes, ms. A backlog of 5,000 pending deliveries drained by a
 * loopback receiver on a loaded machine (load average 18 on 2 cores): about 600 writes and 1,070 µs
 * of CPU per delivery when each turn's outcomes were written on their own, 355 writes and 840 µs with
 * 20 ms. A crash loses at most this much of outcomes: those deliveries are sent again.
 */
export const OUTCOME_WRITE_GAP_MS = 20

/** An outcome waiting for its write, with what to put back if the write fails. */
interface PendingOutcome extends RecordedOutcome {
  before: WebhookDelivery
  after: WebhookDelivery | undefined
  resolve: (stored: WebhookDelivery | undefined) => void
  reject: (err: unknown) => void
}

export class WebhookOutbox {
  /** Pending deliveries by id. */
  private readonly byId = new Map<string, WebhookDelivery>()
  /** The same, by URL, each queue in order. */
  private readonly byUrl = new Map<string, Map<string, WebhookDelivery>>()
  /** Instances whose deliveries were dropped: a late add or a taken-back outcome does not bring them back. */
  private readonly dropped = new Set<string>()
  /** Adds of this turn of the event loop, gathered for the write that will store them (not yet sent). */
  private gathering: { batch: WebhookDelivery[]; written: Promise<void> } | null = null
  /** Outcomes applied to the working set, gathered for their write. */
  private outcomes: PendingOutcome[] = []
  /** performance.now() of the last outcome write. */
  private lastOutcomeWrite = -Infinity

  private constructor(
    readonly deliveries: WebhookDeliveryRepo,
    private readonly mine: (instanceId: string) => boolean
  ) {}

  /**
   * The outbox over `deliveries`, with every pending delivery of the instances `mine` answers true for
   * loaded (oldest first). `mine` is the workers' rule (docs/design.md §22): in database mode only the
   * worker holding an instance's lease sends its deliveries, so each is sent by one worker; the others'
   * rows wait in the table until this worker claims their instance ({@link claimInstance}). Without it
   * (one process) every instance is this one's. Throws the storage's errors.
   */
  static async open(deliveries: WebhookDeliveryRepo, mine: (instanceId: string) => boolean = () => true): Promise<WebhookOutbox> {
    const box = new WebhookOutbox(deliveries, mine)
    for (const d of await deliveries.pending()) if (mine(d.instance_id)) box.put(d)
    return box
  }

  /**
   * This worker now holds `instanceId`'s lease: its pending deliveries in the table (those the last
   * owner left, or another worker stored) join the working set. Throws the storage's errors.
   */
  async claimInstance(instanceId: string): Promise<void> {
    const rows = await this.deliveries.pending(instanceId)
    // Lost again meanwhile, or deleted: not ours to send.
    if (!this.mine(instanceId) || this.dropped.has(instanceId)) return
    for (const d of rows) if (!this.byId.has(d.id)) this.put(d)
  }

  /** This worker lost `instanceId`'s lease: its deliveries leave the working set (not the table), for the new owner to send. */
  releaseInstance(instanceId: string): void {
    for (const d of [...this.byId.values()]) if (d.instance_id === instanceId) this.remove(d.id)
  }

  /** A delivery of the working set (pending, committed), or undefined. */
  pending(id: string): WebhookDelivery | undefined {
    return this.byId.get(id)
  }

  /** The working set by endpoint URL, each queue oldest first. A live view: do not change it. */
  pendingByEndpoint(): ReadonlyMap<string, ReadonlyMap<string, WebhookDelivery>> {
    return this.byUrl
  }

  /**
   * Stores deliveries; resolves once committed, and only then does the dispatcher see them. The adds
   * asked for in one turn of the event loop go in one insert, as one write of the next group commit
   * (16 events at once: 100 µs of CPU each, against 135 µs as a write each, when each write had its
   * savepoint). Only data goes to storage, so on SQLite the write runs whole in the database's writer
   * thread, beside the messages the events are about; a write handed a function would run here
   * statement by statement, in a transaction of its own holding the writer for its BEGIN, insert and
   * COMMIT (a round trip each) and a commit of its own.
   * Rejects with the storage's error (StorageFullError on a full disk): nothing of them stored, nor
   * of the adds gathered with them.
   */
  async add(deliveries: WebhookDelivery[]): Promise<void> {
    if (deliveries.length === 0) return
    let g = this.gathering
    if (g) g.batch.push(...deliveries)
    else {
      const batch = [...deliveries]
      g = this.gathering = { batch, written: new Promise<void>((resolve, reject) => setImmediate(() => void this.writeGathered(batch).then(resolve, reject))) }
    }
    await g.written
    // Another worker's instance (a desk event raised here as its lease moved): the row waits in the
    // table for that instance's owner, which loads it when it claims the instance.
    for (const d of deliveries) if (d.status === 'pending' && !this.dropped.has(d.instance_id) && this.mine(d.instance_id)) this.put(d)
  }

  /** Stores the adds gathered in `batch`; later adds start the next gathering. */
  private writeGathered(batch: WebhookDelivery[]): Promise<void> {
    if (this.gathering?.batch === batch) this.gathering = null
    return this.deliveries.add(batch)
  }

  /**
   * Records an attempt's outcome for a delivery of the working set: there at once (a finished
   * delivery leaves it, a retry waits there for its time), in the table with the outcomes of the same
   * moment, on the returned promise, which answers the delivery as stored (undefined when it was not
   * in the working set, or is gone with its instance). When the write fails the working set is put
   * back as it was (unless a manual retry or a delete changed it meanwhile) and the promise rejects.
   */
  record(id: string, outcome: DeliveryOutcome): Promise<WebhookDelivery | undefined> {
    const before = this.byId.get(id)
    if (!before) return Promise.resolve(undefined)
    const after = outcome.status === 'pending' ? { ...before, ...outcome } : undefined
    this.remove(id)
    if (after) this.put(after)
    return new Promise((resolve, reject) => {
      this.outcomes.push({ id, instanceId: before.instance_id, outcome, before, after, resolve, reject })
      if (this.outcomes.length === 1) this.scheduleOutcomes()
    })
  }

  /** Writes the gathered outcomes after this turn's, or once the gap since the last outcome write is over. */
  private scheduleOutcomes(): void {
    const run = () => {
      this.lastOutcomeWrite = performance.now()
      this.writeOutcomes()
    }
    const wait = this.lastOutcomeWrite + OUTCOME_WRITE_GAP_MS - performance.now()
    // A real timer, not the dispatcher's clock: this paces disk writes, not retries.
    if (wait <= 0) setImmediate(run)
    else setTimeout(run, wait)
  }

  /** Writes the outcomes gathered so far, in one write; settles each one's promise. */
  private writeOutcomes(): void {
    const batch = this.outcomes.splice(0)
    const unchanged = (o: PendingOutcome) => this.byId.get(o.id) === o.after
    // Only the outcomes' data goes to storage (the write then runs whole in the database's thread).
    this.deliveries.record(batch.map(({ id, instanceId, outcome }) => ({ id, instanceId, outcome }))).then(
      (found) =>
        batch.forEach((o, i) => {
          if (found[i]) return o.resolve({ ...o.before, ...o.outcome })
          if (o.after && unchanged(o)) this.remove(o.id)
          o.resolve(undefined)
        }),
      (err: unknown) => {
        // Newest first, so each one finds the working set as its change left it.
        for (const o of [...batch].reverse()) {
          if (unchanged(o) && !this.dropped.has(o.instanceId) && this.mine(o.instanceId)) {
            this.remove(o.id)
            this.put(o.before)
          }
        }
        for (const o of batch) o.reject(err)
      }
    )
  }

  /**
   * A manual retry: makes a failed or pending delivery of `instanceId` pending again, due at
   * `nextAttemptAt` (ISO 8601), to `url` when given (else its own). Refused with nothing changed for
   * another instance's or an unknown id, and for a delivered one.
   */
  async requeue(instanceId: string, id: string, url: string | null, nextAttemptAt: string): Promise<RequeueResult> {
    const result = await this.deliveries.requeue(instanceId, id, url, nextAttemptAt)
    if ('requeued' in result && !this.dropped.has(instanceId) && this.mine(instanceId)) {
      this.remove(id)
      this.put(result.requeued)
    }
    return result
  }

  /** Drops every delivery of an instance (deleted): from the working set now, from the table on the returned promise. */
  async removeInstance(instanceId: string): Promise<void> {
    this.dropped.add(instanceId)
    for (const d of [...this.byId.values()]) if (d.instance_id === instanceId) this.remove(d.id)
    await this.deliveries.removeInstance(instanceId)
  }

  private put(d: WebhookDelivery): void {
    this.byId.set(d.id, d)
    let queue = this.byUrl.get(d.url)
    if (!queue) this.byUrl.set(d.url, (queue = new Map<string, WebhookDelivery>()))
    queue.set(d.id, d)
  }

  private remove(id: string): void {
    const d = this.byId.get(id)
    if (!d) return
    this.byId.delete(id)
    const queue = this.byUrl.get(d.url)
    queue?.delete(id)
    if (queue?.size === 0) this.byUrl.delete(d.url)
  }
}
