/**
 * Baileys auth state of one instance, persisted in its auth dir (`sessions/<instanceId>/`) with
 * crash-safe writes.
 *
 * ```
 * creds.json      AuthenticationCreds (BufferJSON), replaced atomically on every creds.update
 * keys.json       snapshot of the signal key store: {type: {id: value}} (BufferJSON), atomic
 * keys.journal    JSON Lines since the snapshot; one line = one keys.set() mutation set
 * ```
 *
 * Why not the library's `useMultiFileAuthState` (lib/Utils/use-multi-file-auth-state.js): it writes
 * one file per key with a plain `writeFile` (a crash can leave a truncated creds.json or session
 * file), and its own comment says it is not meant for production. Baileys commits each key
 * transaction as ONE `keys.set(mutations)` (lib/Utils/auth-utils.js `commitWithRetry`), e.g. a new
 * session together with the consumed pre-key; here that set is one appended, fsynced journal line,
 * so it lands whole or not at all: a torn last line (crash mid-append, never acknowledged) is
 * skipped on load. The journal is folded into the snapshot at open and whenever it outgrows the
 * snapshot (≥ 1 MiB), so a write costs the size of the change, not of the whole store.
 *
 * Keys live in memory (they are needed for every message and the snapshot); their number follows
 * the contacts and groups of the account, not uptime, and consumed pre-keys are deleted. Session
 * records keep at most 5 receiving chains per session (./session-record-prune.ts), so their size does
 * not grow with the length of a conversation. Values
 * are revived with `BufferJSON.reviver`; `app-state-sync-key` values become
 * `proto.Message.AppStateSyncKeyData` as the library expects.
 *
 * Errors: {@link AuthStoreError} when a file exists but cannot be parsed (left untouched). Writes
 * after {@link AuthStore.close} are dropped (a socket being torn down may still emit updates; they
 * must not recreate a deleted dir).
 */
import { mkdir, open, rm, truncate, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { BufferJSON, initAuthCreds, proto, type AuthenticationCreds, type SignalDataSet, type SignalDataTypeMap, type SignalKeyStore } from 'baileys'
import type { Logger } from '../../logger'
import { readFileIfExists, writeFileDurably } from '../../store/durable-file'
import { pruneSessionRecord } from './session-record-prune'

export const CREDS_FILE = 'creds.json'
export const KEYS_FILE = 'keys.json'
export const JOURNAL_FILE = 'keys.journal'

/** Journal size (bytes) below which it is never compacted, whatever the snapshot size. */
const MIN_COMPACT_BYTES = 1024 * 1024

type KeyType = keyof SignalDataTypeMap
type KeyMap = Map<string, Map<string, unknown>>

/** A credentials file exists but cannot be parsed. */
export class AuthStoreError extends Error {
  constructor(
    readonly file: string,
    cause: unknown
  ) {
    super(`The saved WhatsApp credentials in ${file} are unreadable (${cause instanceof Error ? cause.message : String(cause)}); log out to link the device again.`)
    this.name = 'AuthStoreError'
  }
}

function reviveValue(type: string, value: unknown): unknown {
  if (type === 'app-state-sync-key' && value) {
    return proto.Message.AppStateSyncKeyData.fromObject(value)
  }
  return value
}

/** The key carrying a change's number in journal lines and the snapshot. */
const SEQ = '$seq'
type Numbered = { [SEQ]?: unknown } & Record<string, Record<string, unknown> | undefined>

function applyMutations(keys: KeyMap, data: SignalDataSet | Record<string, Record<string, unknown> | undefined>, revive: boolean): void {
  for (const type of Object.keys(data)) {
    const entries = (data as Record<string, Record<string, unknown> | undefined>)[type]
    if (!entries) continue
    let bucket = keys.get(type)
    for (const id of Object.keys(entries)) {
      const value = entries[id]
      if (value === null || value === undefined) {
        bucket?.delete(id)
        continue
      }
      if (!bucket) {
        bucket = new Map()
        keys.set(type, bucket)
      }
      bucket.set(id, revive ? reviveValue(type, value) : value)
    }
    if (bucket && bucket.size === 0) keys.delete(type)
  }
}

/** The file's text or null when missing; a read error is a {@link AuthStoreError} naming the file. */
function readOptional(file: string): Promise<string | null> {
  return readFileIfExists(file).catch((err: unknown) => {
    throw new AuthStoreError(file, err)
  })
}

export class AuthStore {
  /** The live creds object; Baileys mutates it in place and emits creds.update. */
  creds: AuthenticationCreds
  readonly keys: SignalKeyStore
  private readonly map: KeyMap
  private chain: Promise<void> = Promise.resolve()
  private journal: FileHandle | null = null
  private journalBytes = 0
  private snapshotBytes = 0
  /** The number of the last change (journal lines and the snapshot carry it as `$seq`). */
  private seq = 0
  private closed = false

  private constructor(
    readonly dir: string,
    creds: AuthenticationCreds,
    map: KeyMap,
    private readonly logger?: Logger
  ) {
    this.creds = creds
    this.map = map
    this.keys = {
      get: async <T extends KeyType>(type: T, ids: string[]) => {
        const bucket = this.map.get(type)
        const out: { [id: string]: SignalDataTypeMap[T] } = {}
        if (!bucket) return out
        for (const id of ids) {
          const v = bucket.get(id)
          if (v !== undefined) out[id] = v as SignalDataTypeMap[T]
        }
        return out
      },
      set: (data: SignalDataSet) => this.setKeys(data),
      clear: () => this.clearKeys()
    }
  }

  /**
   * Loads (or initialises) the auth state in `dir`, creating the dir. A journal left by the last run
   * is folded into the snapshot. Throws {@link AuthStoreError} on an unparsable file.
   */
  static async open(dir: string, logger?: Logger): Promise<AuthStore> {
    await mkdir(dir, { recursive: true, mode: 0o700 })
    const credsText = await readOptional(join(dir, CREDS_FILE))
    let creds: AuthenticationCreds
    try {
      creds = credsText === null ? initAuthCreds() : (JSON.parse(credsText, BufferJSON.reviver) as AuthenticationCreds)
    } catch (err) {
      throw new AuthStoreError(join(dir, CREDS_FILE), err)
    }
    const map: KeyMap = new Map()
    const snapshotFile = join(dir, KEYS_FILE)
    const snapshotText = await readOptional(snapshotFile)
    let snapshotSeq = 0
    if (snapshotText !== null) {
      try {
        const { [SEQ]: seq, ...keys } = JSON.parse(snapshotText, BufferJSON.reviver) as Numbered
        snapshotSeq = typeof seq === 'number' ? seq : 0
        applyMutations(map, keys, true)
      } catch (err) {
        throw new AuthStoreError(snapshotFile, err)
      }
    }
    let lastSeq = snapshotSeq
    const journalFile = join(dir, JOURNAL_FILE)
    const journalText = (await readOptional(journalFile)) ?? ''
    const lines = journalText.split('\n')
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!
      if (!line.trim()) continue
      try {
        const { [SEQ]: seq, ...keys } = JSON.parse(line, BufferJSON.reviver) as Numbered
        // A line the snapshot already holds (a crash between writing the snapshot and emptying the
        // journal): replaying it could put an older value over a newer one, or bring back cleared keys.
        if (typeof seq === 'number') {
          if (seq <= snapshotSeq) continue
          lastSeq = Math.max(lastSeq, seq)
        }
        applyMutations(map, keys, true)
      } catch (err) {
        // Only the last line can be torn (an append that never completed, never acknowledged).
        if (i === lines.length - 1) {
          logger?.warn({ file: journalFile }, 'skipping a torn last line of the key journal')
          continue
        }
        throw new AuthStoreError(journalFile, err)
      }
    }
    const store = new AuthStore(dir, creds, map, logger)
    store.snapshotBytes = snapshotText?.length ?? 0
    store.seq = lastSeq
    if (journalText.length > 0) await store.enqueue(() => store.compact())
    return store
  }

  /** Deletes the auth state of `dir` (logout, delete). */
  static async remove(dir: string): Promise<void> {
    // Another store of the session (the message store's file) may still be finishing a write in this
    // dir while it is removed; rm then meets ENOTEMPTY. Node's rm retries that case itself.
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 })
  }

  /** True once the creds belong to a linked device (pair-success seen). */
  get paired(): boolean {
    return Boolean(this.creds.me?.id && this.creds.account)
  }

  /** Number of stored keys of `type` (tests, diagnostics). */
  count(type: KeyType): number {
    return this.map.get(type)?.size ?? 0
  }

  /** Writes the creds atomically; resolves once on disk. Serialised with key writes. */
  saveCreds(): Promise<void> {
    if (this.closed) return Promise.resolve()
    return this.enqueue(async () => {
      await writeFileDurably(join(this.dir, CREDS_FILE), JSON.stringify(this.creds, BufferJSON.replacer))
    })
  }

  /** Resolves when every write queued so far is on disk. */
  async flush(): Promise<void> {
    await this.enqueue(async () => {})
  }

  /** Flushes and stops writing; later updates are dropped. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return
    await this.flush()
    this.closed = true
    await this.closeJournal()
  }

  /** Closes and deletes the auth dir. */
  async destroy(): Promise<void> {
    await this.close()
    await AuthStore.remove(this.dir)
  }

  private setKeys(data: SignalDataSet): Promise<void> {
    if (this.closed) {
      this.logger?.debug('auth store closed; key update dropped')
      return Promise.resolve()
    }
    // Old receiving chains go before the record is kept or written, so it stops growing with the conversation.
    for (const record of Object.values(data.session ?? {})) pruneSessionRecord(record)
    applyMutations(this.map, data, false)
    const line = JSON.stringify({ [SEQ]: ++this.seq, ...data }, BufferJSON.replacer) + '\n'
    return this.enqueue(async () => {
      if (this.closed) return
      try {
        this.journal ??= await open(join(this.dir, JOURNAL_FILE), 'a', 0o600)
        await this.journal.write(line)
        await this.journal.datasync()
      } catch (err) {
        // A failed append may have left part of a line; the next one would be glued to it. The
        // snapshot already holds this mutation in memory: write it whole and start a clean journal.
        this.logger?.warn({ err, dir: this.dir }, 'key journal append failed; compacting')
        await this.compact()
        return
      }
      this.journalBytes += Buffer.byteLength(line)
      if (this.journalBytes >= Math.max(MIN_COMPACT_BYTES, this.snapshotBytes)) await this.compact()
    })
  }

  private clearKeys(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.map.clear()
    // Numbered like a change, so no earlier journal line is replayed over the empty snapshot.
    this.seq++
    return this.enqueue(() => this.compact())
  }

  /** Snapshot of every key written atomically (with the number of the last change it holds), then the
   * journal emptied. A crash between the two leaves lines the snapshot holds: they are skipped at load. */
  private async compact(): Promise<void> {
    const obj: Record<string, unknown> = { [SEQ]: this.seq }
    for (const [type, bucket] of this.map) obj[type] = Object.fromEntries(bucket)
    const text = JSON.stringify(obj, BufferJSON.replacer)
    await writeFileDurably(join(this.dir, KEYS_FILE), text)
    this.snapshotBytes = text.length
    await this.closeJournal()
    await truncate(join(this.dir, JOURNAL_FILE), 0).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err
    })
    this.journalBytes = 0
  }

  private async closeJournal(): Promise<void> {
    const j = this.journal
    this.journal = null
    await j?.close()
  }

  private enqueue(op: () => Promise<void>): Promise<void> {
    const run = this.chain.then(op)
    // The chain continues after a failed write; the caller sees the failure.
    this.chain = run.catch((err) => this.logger?.error({ err, dir: this.dir }, 'auth state write failed'))
    return run
  }
}
