/**
 * The message log (docs/design.md §7): every inbound and outbound message, newest N per instance.
 *
 * High-churn data lives apart from the configuration file: one append-only JSON Lines file per
 * instance (`messages/<instanceId>.jsonl`). Appends are grouped and fsynced, so a burst costs few
 * syscalls and an acknowledged append is on disk. A change to a logged entry (its delivery status,
 * its chat id once a LID is mapped to a number) is appended as a patch line `{"$patch": id, …fields}`
 * and applied to the entry on load, so no update rewrites the file. When a file holds twice the limit
 * it is rewritten atomically with the newest N, patches merged.
 *
 * Nothing acknowledged is lost, nothing unacknowledged half-stored: each instance's file stays open and
 * a batch of lines is appended whole or cut back to the last good line (a full disk, a short write:
 * {@link appendDurably}); the batch's callers get the error and the in-memory log is read again from
 * the file, so no failed change lingers in memory. An unparsable line (a torn tail after a crash, a
 * damaged file) never blocks the instance: it is skipped, kept aside in `<instanceId>.rejected.jsonl`
 * and reported, and the file is rewritten without it.
 */
import { appendFile, mkdir, rm, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { LoggedMessage } from '../../shared/schemas/records'
import { DataFileError } from './journaled-document'
import { appendDurably, DIR_MODE, FILE_MODE, openForAppend, readFileIfExists, writeFileDurably } from './durable-file'

/** Longest wait before lines nobody waits for are written (ms). */
export const LAZY_FLUSH_MS = 250

/** The key of a patch line: the id of the entry it changes. */
const PATCH = '$patch'

function findNewest(entries: LoggedMessage[], id: string): LoggedMessage | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.id === id) return entries[i]
  return undefined
}

export interface MessageQuery {
  chatId?: string
  /** Max entries returned (newest last). */
  limit?: number
  /** Only entries strictly older than this epoch-ms timestamp. */
  before?: number
}

interface InstanceLog {
  entries: LoggedMessage[]
  /** Lines in the file, to know when to compact. */
  lines: number
  pending: string[]
  waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }>
  flushing: Promise<void> | null
  /** A flush scheduled for lines nobody waits for (lazy updates). */
  lazyTimer: NodeJS.Timeout | null
  /** The file, open for appending, and its length (what a failed append is cut back to). */
  fh: FileHandle | null
  size: number
}

/** Told when a log file had lines that could not be read (they are kept aside in `rejectedFile`). */
export type BadLinesReport = (instanceId: string, count: number, rejectedFile: string) => void

export class MessageLog {
  private readonly logs = new Map<string, Promise<InstanceLog>>()

  constructor(
    private readonly dir: string,
    /** Newest entries kept per instance. */
    private readonly limit = 1000,
    private readonly reportBadLines: BadLinesReport = () => {}
  ) {}

  /** Appends one entry; resolves once it is on disk. */
  async append(instanceId: string, entry: LoggedMessage): Promise<void> {
    const log = await this.load(instanceId)
    log.entries.push(entry)
    // Trimmed in steps, not at every append: shifting a full log by one entry per message cost a
    // few percent of a send's CPU. Readers see the newest `limit` only (newest()).
    if (log.entries.length > this.limit + Math.max(16, this.limit >> 3)) log.entries.splice(0, log.entries.length - this.limit)
    await this.write(instanceId, log, JSON.stringify(entry) + '\n')
  }

  /** Queues one line for the group commit; resolves once it is on disk. */
  private write(instanceId: string, log: InstanceLog, line: string): Promise<void> {
    if (line) log.pending.push(line)
    return new Promise<void>((resolve, reject) => {
      log.waiters.push({ resolve, reject })
      if (!log.flushing) log.flushing = this.flush(instanceId, log)
    })
  }

  /**
   * Changes fields of the entry with message id `id` (newest first); resolves with a copy of the
   * entry as this change left it, once the change is on disk, or undefined when no entry has that
   * id. `id` itself cannot change.
   */
  async update(instanceId: string, id: string, patch: Partial<Omit<LoggedMessage, 'id'>>, opts: { lazy?: boolean } = {}): Promise<LoggedMessage | undefined> {
    const log = await this.load(instanceId)
    const entry = findNewest(log.entries, id)
    if (!entry) return undefined
    Object.assign(entry, patch)
    // As it is now: a later update of the same entry must not change what this caller reports.
    const snapshot = structuredClone(entry)
    const line = JSON.stringify({ [PATCH]: id, ...patch }) + '\n'
    if (opts.lazy) this.writeLazily(instanceId, log, line)
    else await this.write(instanceId, log, line)
    return snapshot
  }

  /**
   * Queues a line nobody waits for (a delivery status: nothing was acknowledged on it): it goes to
   * disk with the next write, or within {@link LAZY_FLUSH_MS}, so a burst of receipts costs one fsync
   * instead of one each. A crash can lose at most that much of such lines.
   */
  private writeLazily(instanceId: string, log: InstanceLog, line: string): void {
    log.pending.push(line)
    if (log.lazyTimer) return
    log.lazyTimer = setTimeout(() => {
      log.lazyTimer = null
      if (log.pending.length > 0) void this.write(instanceId, log, '').catch(() => {})
    }, LAZY_FLUSH_MS)
    log.lazyTimer.unref()
  }

  /**
   * Files the entries of chat `from` under chat `to` (a LID chat under its phone-number JID): each
   * moved entry gets a patch line; inbound ones also name the sender by both forms. Resolves with how
   * many entries moved, once on disk.
   */
  async rekeyChat(instanceId: string, from: string, to: string): Promise<number> {
    const log = await this.load(instanceId)
    const writes: Array<Promise<void>> = []
    for (const entry of log.entries) {
      if (entry.chatId !== from) continue
      const patch: Partial<LoggedMessage> = { chatId: to }
      if (entry.senderId === from) patch.senderId = to
      if (!entry.fromMe) {
        patch.senderPn = entry.senderPn ?? to
        patch.senderLid = entry.senderLid ?? from
      }
      Object.assign(entry, patch)
      writes.push(this.write(instanceId, log, JSON.stringify({ [PATCH]: entry.id, ...patch }) + '\n'))
    }
    await Promise.all(writes)
    return writes.length
  }

  /** Entries of one instance, oldest first, filtered by chat and time, at most `limit` (newest). */
  async list(instanceId: string, query: MessageQuery = {}): Promise<LoggedMessage[]> {
    const log = await this.load(instanceId)
    let rows = this.newest(log)
    if (query.chatId !== undefined) rows = rows.filter((m) => m.chatId === query.chatId)
    if (query.before !== undefined) rows = rows.filter((m) => m.timestamp < query.before!)
    const limit = query.limit ?? 100
    return rows.slice(Math.max(0, rows.length - limit))
  }

  /** Finds an entry by message id (newest first). */
  async find(instanceId: string, id: string): Promise<LoggedMessage | undefined> {
    const log = await this.load(instanceId)
    return findNewest(log.entries, id)
  }

  /** Deletes the log of an instance (instance delete). */
  async remove(instanceId: string): Promise<void> {
    const log = this.logs.get(instanceId)
    if (log) {
      const l = await log
      if (l.lazyTimer) clearTimeout(l.lazyTimer)
      l.lazyTimer = null
      l.pending = []
      while (l.flushing) await l.flushing
      await this.closeFile(l)
    }
    this.logs.delete(instanceId)
    await rm(this.file(instanceId), { force: true })
  }

  /** Writes what is queued (lazy lines included) and waits for every pending append. */
  async close(): Promise<void> {
    for (const [instanceId, p] of this.logs) {
      const l = await p
      if (l.lazyTimer) clearTimeout(l.lazyTimer)
      l.lazyTimer = null
      if (l.pending.length > 0) await this.write(instanceId, l, '').catch(() => {})
      while (l.flushing) await l.flushing
      await this.closeFile(l)
    }
  }

  private async closeFile(log: InstanceLog): Promise<void> {
    const fh = log.fh
    log.fh = null
    await fh?.close().catch(() => {})
  }

  private file(instanceId: string): string {
    return join(this.dir, `${instanceId}.jsonl`)
  }

  private load(instanceId: string): Promise<InstanceLog> {
    let p = this.logs.get(instanceId)
    if (!p) {
      p = this.read(instanceId)
      this.logs.set(instanceId, p)
      p.catch(() => this.logs.delete(instanceId))
    }
    return p
  }

  private async read(instanceId: string): Promise<InstanceLog> {
    const file = this.file(instanceId)
    const text = (await readFileIfExists(file).catch((err: unknown) => {
      throw new DataFileError(file, err)
    })) ?? ''
    const lines = text.split('\n')
    const entries: LoggedMessage[] = []
    const rejected: string[] = []
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!
      if (!line) continue
      try {
        const parsed = JSON.parse(line) as LoggedMessage | ({ [PATCH]: string } & Partial<LoggedMessage>)
        if (PATCH in parsed) {
          const { [PATCH]: target, ...patch } = parsed
          const entry = findNewest(entries, target)
          if (entry) Object.assign(entry, patch)
        } else {
          entries.push(parsed)
        }
      } catch {
        rejected.push(line)
      }
    }
    const lineCount = lines.filter((l) => l !== '').length
    const log: InstanceLog = { entries: entries.slice(-this.limit), lines: lineCount, pending: [], waiters: [], flushing: null, lazyTimer: null, fh: null, size: 0 }
    if (rejected.length > 0) {
      const aside = join(this.dir, `${instanceId}.rejected.jsonl`)
      await appendFile(aside, rejected.map((l) => l + '\n').join(''), { mode: FILE_MODE })
      this.reportBadLines(instanceId, rejected.length, aside)
    }
    // Rewrite without what could not be read (and after a torn tail), so appends start on a clean line.
    if (rejected.length > 0 || (text && !text.endsWith('\n'))) await this.rewrite(instanceId, log)
    return log
  }

  private async flush(instanceId: string, log: InstanceLog): Promise<void> {
    try {
      while (log.waiters.length > 0) {
        const chunk = log.pending.join('')
        const count = log.pending.length
        const waiters = log.waiters
        log.pending = []
        log.waiters = []
        try {
          if (log.lines + count > this.limit * 2) {
            await this.rewrite(instanceId, log)
          } else {
            const fh = await this.openFile(instanceId, log)
            log.size = await appendDurably(fh, this.file(instanceId), log.size, Buffer.from(chunk))
            log.lines += count
          }
          for (const w of waiters) w.resolve()
        } catch (err) {
          // Nothing of this batch stays, on disk (cut back) or in memory (read again from the file);
          // what was queued behind it fails too, since its in-memory changes go with the reload.
          const queued = log.waiters
          log.pending = []
          log.waiters = []
          if (this.logs.get(instanceId) && (await this.logs.get(instanceId)) === log) this.logs.delete(instanceId)
          await this.closeFile(log)
          for (const w of [...waiters, ...queued]) w.reject(err)
        }
      }
    } finally {
      log.flushing = null
    }
  }

  /** The entries kept: the newest `limit` (memory may hold a few more until the next trim). */
  private newest(log: InstanceLog): LoggedMessage[] {
    return log.entries.length > this.limit ? log.entries.slice(log.entries.length - this.limit) : log.entries
  }

  private async rewrite(instanceId: string, log: InstanceLog): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: DIR_MODE })
    log.entries = this.newest(log)
    const text = log.entries.map((e) => JSON.stringify(e) + '\n').join('')
    // The open handle names the old file, which the rename replaces.
    await this.closeFile(log)
    await writeFileDurably(this.file(instanceId), text)
    log.lines = log.entries.length
  }

  /** The instance's file, open for appending (kept open: one write and one fdatasync per batch). */
  private async openFile(instanceId: string, log: InstanceLog): Promise<FileHandle> {
    if (log.fh) return log.fh
    await mkdir(this.dir, { recursive: true, mode: DIR_MODE })
    const fh = await openForAppend(this.file(instanceId))
    log.size = (await stat(this.file(instanceId))).size
    log.fh = fh
    return fh
  }
}
