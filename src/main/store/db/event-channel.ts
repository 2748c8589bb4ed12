/**
 * Events across workers (docs/design.md §22 "Events across workers"): each worker publishes
 * the events its own services raise with PostgreSQL's NOTIFY on one channel, and LISTENs there for the
 * other workers' events. The core decides what is published and where a received event goes (the
 * faces' bus only); this module is the wire: envelopes, the 8000-byte payload limit, order, gaps and a
 * dropped listening connection. Nothing here knows the events' shapes.
 *
 * - **Envelope.** `{w, r, s, t, v, p}`: the publishing worker's id (`w`, for logs), the id of its run
 *   (`r`, random per process start: a worker ignores its own run's events), a sequence number per run
 *   (`s`), the event's name (`t`), the publisher's configuration document version when it published
 *   (`v`, null outside database mode), and the payload (`p`).
 * - **Payload limit.** A NOTIFY payload must be shorter than 8000 bytes
 *   (https://www.postgresql.org/docs/current/sql-notify.html). A larger envelope travels as parts:
 *   the payload's JSON, UTF-8 and base64, cut into {@link PART_CHARS}-character pieces, each its own
 *   notification `{w, r, s, t, v, n, i, c}` (`n` parts, part `i`, piece `c`), all in one statement and
 *   so in one transaction. A transaction's notifications are delivered in the order sent, and a
 *   publisher's transactions run one after another, so a receiver gets each run's parts in order and
 *   keeps at most one event in assembly per run.
 * - **Order.** Events are sent in the order published: one statement at a time per process, each
 *   carrying every event published meanwhile, in order (`unnest … WITH ORDINALITY … ORDER BY`).
 *   Received events are handed over one at a time, in order of arrival.
 * - **Gaps.** A receiver that sees a run's sequence jump (the publisher's statement failed, a part
 *   went missing) calls `onResync`. A listening connection that breaks is opened again (with a
 *   backoff: ./lasting-listen.ts); once it listens again,
 *   `onResync` is called, since events may have been sent meanwhile.
 * - **Reading after an event.** Before handing over an event whose `v` is newer than this worker's
 *   configuration document, the document is read again (`config.atLeast`), so what the event
 *   announces (an instance's new state) is what a read made right after it finds.
 */
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import type { DatabaseHandle } from './database'
import { listenLasting } from './lasting-listen'
import type { Logger } from '../../logger'

/** The PostgreSQL channel of the workers' events. */
export const EVENTS_CHANNEL = 'chatapp_events'
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
export const NOTIFY_MAX_BYTES = 7999
/** Base64 characters of a part (a multiple of 4, so the pieces join into one valid base64 text). */
export const PART_CHARS = 7000

/** What the channel needs of the configuration document (../config/config-store.ts). */
export interface VersionedConfig {
  /** The version this worker holds (null outside database mode or before the first read). */
  readonly version: number | null
  /** Reads the document again when this worker's is older than `version`. */
  atLeast(version: number): Promise<void>
}

export interface EventChannelOptions {
  database: Pick<DatabaseHandle, 'db' | 'listen'>
  /** This worker's id (`CHATAPP_WORKER_ID`), carried for the logs. */
  worker: string
  config?: VersionedConfig
  /** An event of another worker, in order; `from` is its worker id. Must not throw. */
  onEvent(type: string, payload: unknown, from: string): void
  /** Events may have been missed (a gap, a listening connection lost and back): the UI reloads. */
  onResync(reason: string): void
  logger: Logger
  /** Backoff of re-listening, ms (tests: shorter). */
  relistenMs?: { min: number; max: number }
}

interface Envelope {
  w: string
  r: string
  s: number
  t: string
  v: number | null
  p?: unknown
  n?: number
  i?: number
  c?: string
}

/** The notifications (one, or the parts) of one event. Pure; throws when even a part cannot fit (a worker id of kilobytes). */
export function encodeEvent(head: Omit<Envelope, 'p' | 'n' | 'i' | 'c'>, payload: unknown): string[] {
  const whole = JSON.stringify({ ...head, p: payload })
  if (Buffer.byteLength(whole) <= NOTIFY_MAX_BYTES) return [whole]
  const data = Buffer.from(JSON.stringify(payload)).toString('base64')
  const n = Math.ceil(data.length / PART_CHARS)
  const parts: string[] = []
  for (let i = 0; i < n; i++) {
    const part = JSON.stringify({ ...head, n, i, c: data.slice(i * PART_CHARS, (i + 1) * PART_CHARS) })
    if (Buffer.byteLength(part) > NOTIFY_MAX_BYTES) throw new Error(`An event part of ${Buffer.byteLength(part)} bytes does not fit a notification (worker id too long?).`)
    parts.push(part)
  }
  return parts
}

/** What a receiver knows of one publishing run. */
interface RunState {
  /** The last sequence number handed over or skipped. */
  s: number
  /** The event being assembled from parts. */
  partial?: { s: number; t: string; v: number | null; n: number; parts: string[] }
}

/** The envelope in `text`, or null when it is not one (another program notifying on the channel). */
function parseEnvelope(text: string): Envelope | null {
  let e: unknown
  try {
    e = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof e !== 'object' || e === null) return null
  const o = e as Record<string, unknown>
  if (typeof o.w !== 'string' || typeof o.r !== 'string' || !Number.isSafeInteger(o.s) || typeof o.t !== 'string') return null
  if (o.v !== null && o.v !== undefined && !Number.isSafeInteger(o.v)) return null
  if ('c' in o && (typeof o.c !== 'string' || !Number.isSafeInteger(o.n) || !Number.isSafeInteger(o.i))) return null
  return o as unknown as Envelope
}

export class EventChannel {
  /** This process's run id: its own events come back to it and are ignored by it. */
  readonly run = randomBytes(8).toString('hex')
  private seq = 0
  private pending: string[] = []
  private flushing: Promise<void> | null = null
  private readonly runs = new Map<string, RunState>()
  private delivering: Promise<void> = Promise.resolve()
  private unlisten: (() => Promise<void>) | null = null
  private closed = false
  /** Counters for tests and the logs. */
  readonly stats = { published: 0, notifications: 0, received: 0, resyncs: 0, publishFailures: 0 }

  private constructor(private readonly opts: EventChannelOptions) {}

  /**
   * LISTENs on {@link EVENTS_CHANNEL} and answers the channel; null when the database cannot listen
   * (SQLite: one process, nothing to relay). Throws the database's error when the LISTEN fails.
   */
  static async open(opts: EventChannelOptions): Promise<EventChannel | null> {
    if (!opts.database.listen) return null
    const channel = new EventChannel(opts)
    await channel.listen()
    return channel
  }

  /**
   * Sends `payload` (JSON-serialisable; serialised now, so later changes to it do not travel) to
   * the other workers as event `type`. Never throws: a failed send is logged, and the receivers see
   * the gap in the sequence and resync.
   */
  publish(type: string, payload: unknown): void {
    if (this.closed) return
    try {
      this.pending.push(...encodeEvent({ w: this.opts.worker, r: this.run, s: ++this.seq, t: type, v: this.opts.config?.version ?? null }, payload))
      this.stats.published++
    } catch (err) {
      this.opts.logger.warn({ err, type }, 'an event could not be sent to the other workers')
      return
    }
    this.flushing ??= this.flush()
  }

  /** Waits until every event published so far was sent (or failed). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending
        this.pending = []
        try {
          // One statement, one transaction: its notifications are delivered together, in this order.
          await sql`SELECT pg_notify(${EVENTS_CHANNEL}, e.payload) FROM unnest(${batch}::text[]) WITH ORDINALITY AS e(payload, n) ORDER BY e.n`.execute(this.opts.database.db)
          this.stats.notifications += batch.length
        } catch (err) {
          this.stats.publishFailures++
          this.opts.logger.warn({ err, notifications: batch.length }, 'events could not be sent to the other workers (their UIs will reload)')
        }
      }
    } finally {
      this.flushing = null
    }
  }

  private async listen(): Promise<void> {
    const { logger } = this.opts
    this.unlisten = await listenLasting(this.opts.database.listen!, EVENTS_CHANNEL, (payload) => this.received(payload), {
      onLost: (err) => logger.warn({ err }, 'the connection listening for the other workers’ events broke; listening again'),
      onRelisten: () => {
        // Whatever was sent while nobody listened is gone: start every run afresh and tell the UIs.
        this.runs.clear()
        this.resync('the connection listening for the other workers’ events broke and was opened again')
      },
      onRetryFailed: (err) => logger.warn({ err }, 'could not listen for the other workers’ events yet'),
      ...(this.opts.relistenMs ? { relistenMs: this.opts.relistenMs } : {})
    })
  }

  private resync(reason: string): void {
    this.stats.resyncs++
    this.delivering = this.delivering.then(() => {
      try {
        this.opts.onResync(reason)
      } catch (err) {
        this.opts.logger.error({ err }, 'a resync listener failed')
      }
    })
  }

  private received(text: string): void {
    if (this.closed) return
    const e = parseEnvelope(text)
    if (!e || e.r === this.run) return
    let run = this.runs.get(e.r)
    const first = e.c === undefined || e.i === 0
    if (!run) {
      // A run first heard now: whatever it sent before is not ours to miss (this worker was not listening).
      if (!first) return
      run = { s: e.s - 1 }
      this.runs.set(e.r, run)
    }
    if (first) {
      if (e.s !== run.s + 1 || run.partial) this.resync(`events of worker ${e.w} were missed (before its event ${e.s})`)
      run.partial = undefined
      run.s = e.s
      if (e.c === undefined) return this.deliver(e.t, e.p, e.v, e.w)
      run.partial = { s: e.s, t: e.t, v: e.v, n: e.n!, parts: [e.c] }
    } else {
      const p = run.partial
      if (!p || p.s !== e.s || p.parts.length !== e.i) return
      p.parts.push(e.c!)
    }
    const p = run.partial
    if (p && p.parts.length === p.n) {
      run.partial = undefined
      let payload: unknown
      try {
        payload = JSON.parse(Buffer.from(p.parts.join(''), 'base64').toString('utf8'))
      } catch (err) {
        this.opts.logger.warn({ err, from: e.w, type: p.t }, 'an event of another worker could not be read')
        return this.resync(`an event of worker ${e.w} could not be read`)
      }
      this.deliver(p.t, payload, p.v, e.w)
    }
  }

  private deliver(type: string, payload: unknown, version: number | null, from: string): void {
    this.stats.received++
    this.delivering = this.delivering.then(async () => {
      if (this.closed) return
      if (version !== null && this.opts.config) {
        await this.opts.config.atLeast(version).catch((err: unknown) => this.opts.logger.warn({ err }, 'could not read the configuration before an event of another worker'))
      }
      try {
        this.opts.onEvent(type, payload, from)
      } catch (err) {
        this.opts.logger.error({ err, type }, 'a listener of the other workers’ events failed')
      }
    })
  }

  /** Sends what is queued, stops listening; later publishes are dropped. */
  async close(): Promise<void> {
    await this.idle()
    this.closed = true
    const unlisten = this.unlisten
    this.unlisten = null
    await unlisten?.()
    await this.delivering
  }
}
