/**
 * Baileys auth state of one instance, in the core's database (docs/design.md §20 "Storage"; the rows are
 * store/repos/channel-auth-repo.ts):
 *
 * - `creds`: Baileys' `AuthenticationCreds` as BufferJSON text in `auth_creds`, written whole on
 *   every `creds.update` ({@link AuthState.saveCreds});
 * - `keys`: the Signal key store, one `auth_keys` row per key (value: BufferJSON text).
 *
 * One `keys.set(mutations)` is ONE database transaction. The socket wraps this store in the library's
 * transaction layer (lib/Socket/socket.js `addTransactionCapability`), which gathers the changes of a
 * Signal operation — e.g. a new session together with the pre-key it consumed — and commits them with
 * a single `set(mutations)` (lib/Utils/auth-utils.js `commitWithRetry`, retried up to
 * `transactionOpts.maxCommitRetries` times on an error). So a crash or a full disk never leaves half
 * of a key transaction: the rows change whole or not at all, and the error (e.g. StorageFullError)
 * reaches the caller.
 *
 * Reads answer, in this order: a key whose write is still on its way to the disk (the group commit
 * gathers writes for one event-loop turn) the value being written, so a read after a set always sees
 * it, and a write that failed stops answering; a key read lately the stored text kept in memory
 * ({@link KEY_CACHE_BYTES} per instance, least recently used out), decoded again at each read so no
 * caller shares an object with another; else the database. The kept text is only ever what the
 * database holds: taken from a read that no write of the same key overlapped, replaced when a write
 * of it commits, dropped when one fails. Why not the library's makeCacheableSignalKeyStore: it takes a
 * value before the store has committed it (lib/Utils/auth-utils.js), so after a failed commit the
 * socket would go on with keys a restart would not have. Why a cache at all: each read is a round
 * trip to a database thread (0.9–1.5 ms under the reply benchmark's load), and a reply reads about
 * five keys one after another (its session, the contact's LID mapping, its trusted-contact tokens).
 *
 * Session records keep at most 5 receiving chains (./session-record-prune.ts) before they are
 * written, so their size does not grow with the length of a conversation. `app-state-sync-key`
 * values are revived as `proto.Message.AppStateSyncKeyData`, as the library expects.
 *
 * Why not the library's `useMultiFileAuthState` (lib/Utils/use-multi-file-auth-state.js): one file
 * per key written with a plain `writeFile`, and its own comment says it is not meant for production.
 *
 * Writes after {@link AuthState.close} are dropped: a socket being torn down may still emit updates,
 * and they must not bring back the rows of a logged-out or deleted instance.
 */
import { BufferJSON, initAuthCreds, proto, type AuthenticationCreds, type SignalDataSet, type SignalDataTypeMap, type SignalKeyStore } from 'baileys'
import type { Logger } from '../../logger'
import type { AuthKeyChange, ChannelAuthRepo } from '../../store/repos/channel-auth-repo'
import { pruneSessionRecord } from './session-record-prune'
import { LRUCache } from 'lru-cache'

/**
 * Stored key text kept in memory per instance (bytes, about: the text's length): the sessions, LID
 * mappings and tokens of a few hundred active contacts (a pruned session record is 1–3 KB).
 */
export const KEY_CACHE_BYTES = 256 * 1024

type KeyType = keyof SignalDataTypeMap

/** Stored credentials or a stored key cannot be read as what Baileys wrote. */
export class AuthStateError extends Error {
  constructor(
    readonly instanceId: string,
    what: string,
    cause: unknown
  ) {
    super(`The saved WhatsApp credentials of instance ${instanceId} are unreadable (${what}: ${cause instanceof Error ? cause.message : String(cause)}); log out to link the device again.`, { cause })
    this.name = 'AuthStateError'
  }
}

/** The stored text of a key value: BufferJSON, as Baileys' own stores write it. */
export function encodeKeyValue(value: unknown): string {
  return JSON.stringify(value, BufferJSON.replacer)
}

/** A key value from its stored text; `app-state-sync-key` values as `AppStateSyncKeyData`. Throws on bad JSON. */
export function decodeKeyValue(type: string, text: string): unknown {
  const value: unknown = JSON.parse(text, BufferJSON.reviver)
  return type === 'app-state-sync-key' && value ? proto.Message.AppStateSyncKeyData.fromObject(value) : value
}

/**
 * The rows of a Signal key map `{type: {id: value | null}}` (a `keys.set` argument, or release 0.1's
 * folded `keys.json` + `keys.journal` parsed with BufferJSON.reviver), encoded as {@link AuthState}
 * writes them: session records pruned, null values as deletions.
 */
export function keyChanges(data: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>): AuthKeyChange[] {
  const out: AuthKeyChange[] = []
  for (const [type, entries] of Object.entries(data)) {
    if (!entries) continue
    for (const [id, value] of Object.entries(entries)) {
      if (value === null || value === undefined) {
        out.push({ type, id, value: null })
        continue
      }
      // Old receiving chains go before the record is written, so it stops growing with the conversation.
      if (type === 'session') pruneSessionRecord(value)
      out.push({ type, id, value: encodeKeyValue(value) })
    }
  }
  return out
}

/** The creds from their stored text; throws when the text is not Baileys' creds. */
function parseCreds(text: string): AuthenticationCreds {
  const creds = JSON.parse(text, BufferJSON.reviver) as Partial<AuthenticationCreds> | null
  if (!creds || typeof creds !== 'object' || !creds.noiseKey?.private || !creds.signedIdentityKey?.private) {
    throw new Error('not the credentials of a WhatsApp linked device')
  }
  return creds as AuthenticationCreds
}

export interface AuthStateOptions {
  logger?: Logger
  /** Epoch ms (the session's clock), for `auth_creds.updated_at`. */
  now?: () => number
}

/** A value being written, and the write it belongs to. */
interface InFlight {
  value: unknown
  write: object
}

export class AuthState {
  /** The live creds object; Baileys mutates it in place and emits creds.update. */
  creds: AuthenticationCreds
  readonly keys: SignalKeyStore
  /** Keys whose write has not committed yet: `type\0id` → the value being written (null: a deletion). */
  private readonly inFlight = new Map<string, InFlight>()
  /** Clears not committed yet: meanwhile a key not in {@link inFlight} reads as absent. */
  private clearing = 0
  /** `type\0id` → the key's text as the database holds it (null: it has none). See the module doc. */
  private readonly stored = new LRUCache<string, { text: string | null }>({ maxSize: KEY_CACHE_BYTES, sizeCalculation: (v, k) => k.length + (v.text?.length ?? 0) + 16 })
  /** Database reads of keys under way, and the keys written (or all, by a clear) meanwhile: their answers are not kept. */
  private reading = 0
  /** Counts the clears asked for: a write begun before one is not kept when it commits after it. */
  private clears = 0
  private writtenWhileReading = new Set<string>()
  private clearedWhileReading = false
  private readonly writes = new Set<Promise<unknown>>()
  private closed = false

  private constructor(
    private readonly repo: ChannelAuthRepo,
    readonly instanceId: string,
    creds: AuthenticationCreds,
    private readonly opts: AuthStateOptions
  ) {
    this.creds = creds
    this.keys = {
      get: (type, ids) => this.getKeys(type, ids),
      set: (data) => this.setKeys(data),
      clear: () => this.clearKeys()
    }
  }

  /**
   * The auth state of `instanceId`: its saved creds, or fresh ones (not saved until the first
   * {@link saveCreds}). Throws {@link AuthStateError} when the saved creds are unreadable, and the
   * database's errors.
   */
  static async open(repo: ChannelAuthRepo, instanceId: string, opts: AuthStateOptions = {}): Promise<AuthState> {
    const text = await repo.creds(instanceId)
    let creds: AuthenticationCreds
    try {
      creds = text === undefined ? initAuthCreds() : parseCreds(text)
    } catch (err) {
      throw new AuthStateError(instanceId, 'creds', err)
    }
    return new AuthState(repo, instanceId, creds, opts)
  }

  /** Deletes the saved creds and keys of `instanceId` (logout, delete) in one transaction. */
  static remove(repo: ChannelAuthRepo, instanceId: string): Promise<void> {
    return repo.remove(instanceId)
  }

  /** True once the creds belong to a linked device (pair-success seen). */
  get paired(): boolean {
    return Boolean(this.creds.me?.id && this.creds.account)
  }

  /** Number of stored keys of `type` (tests, diagnostics). */
  count(type: KeyType): Promise<number> {
    return this.repo.countKeys(this.instanceId, type)
  }

  /**
   * The ids of the keys of `type` as a read now sees them: the stored ones, with those being written
   * and without those being deleted. Throws the database's errors.
   */
  async keyIds(type: KeyType): Promise<string[]> {
    const ids = new Set(this.clearing === 0 ? await this.repo.keyIds(this.instanceId, type) : [])
    const prefix = `${type}\u0000`
    for (const [k, pending] of this.inFlight) {
      if (!k.startsWith(prefix)) continue
      const id = k.slice(prefix.length)
      if (pending.value === null) ids.delete(id)
      else ids.add(id)
    }
    return [...ids]
  }

  /** Writes the creds as they are now; resolves once committed. Dropped after close. */
  saveCreds(): Promise<void> {
    if (this.closed) return Promise.resolve()
    const text = JSON.stringify(this.creds, BufferJSON.replacer)
    return this.track(this.repo.saveCreds(this.instanceId, text, new Date(this.opts.now?.() ?? Date.now()).toISOString()))
  }

  /** Resolves when every write asked for so far has committed or failed. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes])
  }

  /** Stops writing (later updates are dropped), then waits for the writes under way. Idempotent. */
  async close(): Promise<void> {
    this.closed = true
    this.stored.clear()
    await this.flush()
  }

  /** Closes and deletes the creds and keys. */
  async destroy(): Promise<void> {
    await this.close()
    await AuthState.remove(this.repo, this.instanceId)
  }

  private async getKeys<T extends KeyType>(type: T, ids: string[]): Promise<{ [id: string]: SignalDataTypeMap[T] }> {
    const out: { [id: string]: SignalDataTypeMap[T] } = {}
    const toRead: string[] = []
    for (const id of ids) {
      const pending = this.inFlight.get(`${type}\u0000${id}`)
      if (pending) {
        if (pending.value !== null) out[id] = pending.value as SignalDataTypeMap[T]
      } else if (this.clearing === 0) {
        const kept = this.stored.get(`${type}\u0000${id}`)
        if (!kept) toRead.push(id)
        else if (kept.text !== null) out[id] = this.decode(type, id, kept.text)
      }
    }
    if (toRead.length === 0) return out
    const { stored, overlapped, written } = await this.readStored(type, toRead)
    for (const id of toRead) {
      const k = `${type}\u0000${id}`
      // A write that started while this read was under way is newer than what the read found.
      const pending = this.inFlight.get(k)
      if (pending) {
        if (pending.value !== null) out[id] = pending.value as SignalDataTypeMap[T]
        continue
      }
      const text = stored.get(id)
      if (!overlapped && !written.has(k) && !this.closed) this.stored.set(k, { text: text ?? null })
      if (text !== undefined) out[id] = this.decode(type, id, text)
    }
    return out
  }

  /**
   * Keys of `type` as the database holds them, and what overlapped the read: a clear, or writes (by
   * `type\0id`). Whatever the read's outcome, the overlap's record is emptied once no read is under way.
   */
  private async readStored(type: KeyType, ids: string[]): Promise<{ stored: Map<string, string>; overlapped: boolean; written: ReadonlySet<string> }> {
    this.reading++
    try {
      const stored = await this.repo.keys(this.instanceId, type, ids)
      return { stored, overlapped: this.clearedWhileReading, written: this.writtenWhileReading }
    } finally {
      if (--this.reading === 0) {
        this.writtenWhileReading = new Set()
        this.clearedWhileReading = false
      }
    }
  }

  private decode<T extends KeyType>(type: T, id: string, text: string): SignalDataTypeMap[T] {
    try {
      return decodeKeyValue(type, text) as SignalDataTypeMap[T]
    } catch (err) {
      throw new AuthStateError(this.instanceId, `${type} key ${id}`, err)
    }
  }

  private setKeys(data: SignalDataSet): Promise<void> {
    if (this.closed) {
      this.opts.logger?.debug('auth state closed; key update dropped')
      return Promise.resolve()
    }
    const changes = keyChanges(data)
    if (changes.length === 0) return Promise.resolve()
    const write = {}
    const live = data as Record<string, Record<string, unknown> | undefined>
    for (const c of changes) {
      const k = `${c.type}\u0000${c.id}`
      this.inFlight.set(k, { value: c.value === null ? null : live[c.type]![c.id], write })
      if (this.reading > 0) this.writtenWhileReading.add(k)
    }
    const clears = this.clears
    const done = this.repo.applyKeys(this.instanceId, changes).then(
      () => {
        // Committed: the database holds these texts now (writes and clears commit in the order they
        // were asked for), unless a clear asked for since commits after it. Only keys kept already
        // follow: a pairing writes 812 pre-keys that are read once each, if ever.
        if (this.closed || this.clears !== clears) return
        for (const c of changes) {
          const k = `${c.type}\u0000${c.id}`
          if (this.stored.has(k)) this.stored.set(k, { text: c.value })
        }
      },
      (err: unknown) => {
        // Not stored: the next read asks the database.
        for (const c of changes) this.stored.delete(`${c.type}\u0000${c.id}`)
        throw err
      }
    ).finally(() => {
      for (const c of changes) {
        const k = `${c.type}\u0000${c.id}`
        if (this.inFlight.get(k)?.write === write) this.inFlight.delete(k)
      }
    })
    done.catch((err: unknown) => this.opts.logger?.warn({ err, instanceId: this.instanceId, keys: changes.length }, 'could not store a Signal key transaction; the previous keys stay'))
    return this.track(done)
  }

  private clearKeys(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.inFlight.clear()
    this.stored.clear()
    this.clears++
    if (this.reading > 0) this.clearedWhileReading = true
    this.clearing++
    return this.track(
      this.repo.clearKeys(this.instanceId).finally(() => {
        this.clearing--
      })
    )
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.writes.add(p)
    const forget = () => this.writes.delete(p)
    p.then(forget, forget)
    return p
  }
}
