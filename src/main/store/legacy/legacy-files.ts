/**
 * The files of a 0.1 data dir at its root, and moving them aside once their import committed:
 *
 * ```
 * chatapp.json, chatapp.journal     configuration document      } moved to
 * runtime.json, runtime.journal     runtime document            } migrated-<YYYY-MM-DD>/
 * webhook-outbox.jsonl (.json)      webhook outbox              } after the import
 * messages/                         message logs                }
 * sessions/                         channel credentials         }
 * .<file>.<hex>.tmp                 a snapshot write cut short  }
 * ```
 *
 * `attachments/` belongs to both layouts and stays. A move is a rename per entry (atomic), so a crash
 * during it leaves each entry either in place or moved; running the move again finishes it.
 */
import { mkdir, readdir, rename, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { DIR_MODE, syncDir } from '../config/durable-json-file'

/** Files of 0.1 at the data dir's root. */
export const LEGACY_FILES = ['chatapp.json', 'chatapp.journal', 'runtime.json', 'runtime.journal', 'webhook-outbox.jsonl', 'webhook-outbox.json'] as const
/** Folders of 0.1 at the data dir's root (0.1 made them empty at every start). */
export const LEGACY_DIRS = ['messages', 'sessions'] as const
/** Temp files of 0.1's atomic writes (`.<name>.<12 hex>.tmp`), left by a crash. */
const LEGACY_TEMP = /^\.(chatapp\.json|runtime\.json|webhook-outbox\.jsonl)\.[0-9a-f]{12}\.tmp$/

/** The folder the old files go to, named by the day (UTC) of the import's commit. */
export function migratedDirName(doneAtIso: string): string {
  return `migrated-${doneAtIso.slice(0, 10)}`
}

/** Names of the 0.1 entries present at the root of `dataDir`. */
export async function legacyEntries(dataDir: string): Promise<string[]> {
  let names: string[]
  try {
    names = await readdir(dataDir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const known = new Set<string>([...LEGACY_FILES, ...LEGACY_DIRS])
  return names.filter((n) => known.has(n) || LEGACY_TEMP.test(n)).sort()
}

/**
 * Whether `dataDir` holds data of 0.1 to import: one of its files, a message log, or a session
 * folder (the empty folders 0.1 made at every start hold nothing).
 */
export async function hasLegacyData(dataDir: string): Promise<boolean> {
  const names = await legacyEntries(dataDir)
  if (names.some((n) => (LEGACY_FILES as readonly string[]).includes(n))) return true
  if (names.includes('messages') && (await entriesOf(join(dataDir, 'messages'))).some((n) => n.endsWith('.jsonl'))) return true
  if (names.includes('sessions') && (await entriesOf(join(dataDir, 'sessions'))).length > 0) return true
  return false
}

async function entriesOf(dir: string): Promise<string[]> {
  try {
    return (await stat(dir)).isDirectory() ? await readdir(dir) : []
  } catch {
    return []
  }
}

/**
 * Moves every 0.1 entry of `dataDir` into `dataDir/<folder>` (made if missing), then fsyncs both
 * folders so the renames survive a power cut. `onMoved` is told after each rename (a test seam).
 * Entries already moved are not there any more; an entry whose name the folder already holds is an
 * error (nothing is replaced). Answers the folder's path.
 */
export async function moveLegacyEntries(dataDir: string, folder: string, onMoved?: (name: string) => void | Promise<void>): Promise<string> {
  const target = join(dataDir, folder)
  await mkdir(target, { recursive: true, mode: DIR_MODE })
  await syncDir(dataDir)
  const already = new Set(await readdir(target))
  for (const name of await legacyEntries(dataDir)) {
    if (already.has(name)) throw new Error(`Cannot move ${join(dataDir, name)} to ${target}: that folder already has a ${name}. Move one of them away and start again.`)
    await rename(join(dataDir, name), join(target, name))
    await onMoved?.(name)
  }
  await syncDir(target)
  await syncDir(dataDir)
  return target
}
