/**
 * Reads the channel credentials of one instance of release 0.1 (`sessions/<instanceId>/`), with the
 * rules of 0.1 (commit 9aeed71), never writing:
 *
 * - `creds.json`: Baileys' AuthenticationCreds in BufferJSON (`src/main/channel/baileys/auth-store.ts`);
 * - `keys.json`: the Signal key store `{type: {id: value}}` as of change `$seq`, and `keys.journal`:
 *   JSON Lines `{"$seq": n, type: {id: value | null}}`, one `keys.set()` each; lines at or below the
 *   snapshot's `$seq` are skipped, a null value deletes the key, an unreadable LAST line is a torn
 *   append and is skipped, any other unreadable line stops the read;
 * - `message-store.jsonl` (`message-store.ts`): `{id, at, own, m}` lines, `m` the
 *   `proto.WebMessageInfo` bytes in base64; a line that does not parse or decode is skipped (0.1
 *   treated the file as a cache); the later line of an id wins;
 * - `sandbox-creds.json` (`sandbox-channel.ts`): the sandbox's pairing; 0.1 took an unreadable one
 *   for "not linked".
 *
 * Values are revived with Baileys' `BufferJSON.reviver` (Buffers), as 0.1 read them; 0.1 also made
 * `app-state-sync-key` values protobuf objects, which the reader of the new store does likewise.
 * Baileys is loaded only when a session has files to read (it is slow to load).
 */
import { join } from 'node:path'
import type { BufferJSON, proto } from 'baileys'
import { DataFileError } from '../config/durable-json-file'
import { readTextIfExists } from './read-text'

/** Signal keys: type → id → value (BufferJSON revived). */
export type LegacyKeys = Map<string, Map<string, unknown>>

/** A message the real channel kept for retries and media downloads. */
export interface LegacyWaMessage {
  id: string
  /** Epoch ms when kept. */
  at: number
  own: boolean
  /** `proto.WebMessageInfo` bytes. */
  message: Buffer
}

export interface LegacyAuthState {
  /** Baileys creds (revived), or null when the session has none. */
  creds: Record<string, unknown> | null
  keys: LegacyKeys
  /** The sandbox's pairing (`{account, pairedAt}`), or null. */
  sandbox: Record<string, unknown> | null
  waMessages: LegacyWaMessage[]
  /** What was skipped, for the report: torn key-journal lines, unreadable message-store lines, an unreadable sandbox file. */
  skipped: string[]
}

export const CREDS_FILE = 'creds.json'
export const KEYS_FILE = 'keys.json'
export const KEYS_JOURNAL_FILE = 'keys.journal'
export const MESSAGE_STORE_FILE = 'message-store.jsonl'
export const SANDBOX_CREDS_FILE = 'sandbox-creds.json'

type Baileys = { BufferJSON: typeof BufferJSON; proto: typeof proto }
let baileys: Promise<Baileys> | null = null
const loadBaileys = (): Promise<Baileys> => (baileys ??= import('baileys'))

/** Reads the auth dir `dir`. Throws DataFileError naming an unreadable creds or key file. */
export async function readAuthDir(dir: string): Promise<LegacyAuthState> {
  const credsFile = join(dir, CREDS_FILE)
  const keysFile = join(dir, KEYS_FILE)
  const journalFile = join(dir, KEYS_JOURNAL_FILE)
  const credsText = await readTextIfExists(credsFile)
  const snapshotText = await readTextIfExists(keysFile)
  const journalText = await readTextIfExists(journalFile)
  const storeText = await readTextIfExists(join(dir, MESSAGE_STORE_FILE)).catch(() => null)
  const state: LegacyAuthState = { creds: null, keys: new Map(), sandbox: null, waMessages: [], skipped: [] }
  state.sandbox = await readSandboxCreds(join(dir, SANDBOX_CREDS_FILE), state.skipped)
  if (credsText === null && snapshotText === null && !journalText && !storeText) return state
  const { BufferJSON, proto } = await loadBaileys()
  const parse = (text: string): unknown => JSON.parse(text, BufferJSON.reviver)

  if (credsText !== null) {
    try {
      const creds = parse(credsText)
      if (!creds || typeof creds !== 'object' || Array.isArray(creds)) throw new Error('not a JSON object')
      state.creds = creds as Record<string, unknown>
    } catch (err) {
      throw new DataFileError(credsFile, err)
    }
  }

  let snapshotSeq = 0
  if (snapshotText !== null) {
    try {
      const { $seq, ...keys } = parse(snapshotText) as Record<string, unknown>
      snapshotSeq = typeof $seq === 'number' ? $seq : 0
      applyMutations(state.keys, keys)
    } catch (err) {
      throw new DataFileError(keysFile, err)
    }
  }
  const lines = (journalText ?? '').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (!line.trim()) continue
    try {
      const { $seq, ...keys } = parse(line) as Record<string, unknown>
      // A line the snapshot already holds: replaying it could put an older value over a newer one.
      if (typeof $seq === 'number' && $seq <= snapshotSeq) continue
      applyMutations(state.keys, keys)
    } catch (err) {
      // Only the last line can be torn (an append that never completed, never acknowledged).
      if (i === lines.length - 1) {
        state.skipped.push(`${journalFile}: a torn last line`)
        continue
      }
      throw new DataFileError(journalFile, new Error(`line ${i + 1}: ${err instanceof Error ? err.message : String(err)}`))
    }
  }

  const kept = new Map<string, LegacyWaMessage>()
  let bad = 0
  for (const raw of (storeText ?? '').split('\n')) {
    if (!raw) continue
    try {
      const line = JSON.parse(raw) as { id: unknown; at: unknown; own: unknown; m: unknown }
      if (typeof line.id !== 'string' || typeof line.at !== 'number' || typeof line.m !== 'string') throw new Error('not a message-store line')
      const message = Buffer.from(line.m, 'base64')
      proto.WebMessageInfo.decode(message)
      kept.delete(line.id)
      kept.set(line.id, { id: line.id, at: line.at, own: line.own === true, message })
    } catch {
      bad++
    }
  }
  if (bad > 0) state.skipped.push(`${join(dir, MESSAGE_STORE_FILE)}: ${bad} unreadable line(s)`)
  state.waMessages = [...kept.values()]
  return state
}

/** Applies one `keys.set()` (or the snapshot) to `keys`: null or undefined deletes a key. */
function applyMutations(keys: LegacyKeys, data: Record<string, unknown>): void {
  for (const type of Object.keys(data)) {
    const entries = data[type] as Record<string, unknown> | null | undefined
    if (!entries) continue
    let bucket = keys.get(type)
    for (const id of Object.keys(entries)) {
      const value = entries[id]
      if (value === null || value === undefined) {
        bucket?.delete(id)
        continue
      }
      if (!bucket) keys.set(type, (bucket = new Map<string, unknown>()))
      bucket.set(id, value)
    }
    if (bucket && bucket.size === 0) keys.delete(type)
  }
}

async function readSandboxCreds(file: string, skipped: string[]): Promise<Record<string, unknown> | null> {
  let text: string | null
  try {
    text = await readTextIfExists(file)
  } catch {
    skipped.push(`${file}: unreadable (0.1 took it for "not linked")`)
    return null
  }
  if (text === null) return null
  try {
    const creds = JSON.parse(text) as unknown
    if (!creds || typeof creds !== 'object' || Array.isArray(creds)) throw new Error('not a JSON object')
    return creds as Record<string, unknown>
  } catch {
    skipped.push(`${file}: unparsable (0.1 took it for "not linked")`)
    return null
  }
}
