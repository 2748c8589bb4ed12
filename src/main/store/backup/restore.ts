/**
 * Restoring a backup into a data dir: the archive is verified whole first (./verify.ts; a refused
 * archive changes nothing), then the current data is moved aside into `replaced-<time>/` and the
 * restored files take its place. The data dir must not be in use: the app stopped (the caller holds
 * the data-dir lock, or the app's core is closed; see src/main/services/backup/restore-with-reload.ts).
 *
 * Crash safety. Several names change (config.json, chatapp.db and its -wal/-shm, attachments/,
 * media/), and no file system renames several at once, so the swap is a small roll-forward journal:
 *
 * 1. `verified`   the archive is unpacked and checked in `tmp/restore-<rand>/files/` and fsynced, with
 *                 `plan.json` beside it (the items to put in, the name of the replaced-<time>/ folder).
 *                 A crash here: tmp/ is emptied at the next start; the old data is untouched.
 * 2. `staged`     that folder is renamed to `<dataDir>/restore-in-progress/` — the commit point. From here
 *                 on, whoever opens the data dir next ({@link finishInterruptedRestore}, called by
 *                 openStorage before anything is read) completes the restore.
 * 3. `aside:<x>`  each current item is renamed into `replaced-<time>/` (the database's -wal and -shm
 *                 with it: a -wal left beside the restored database would be replayed into it).
 * 4. `in:<x>`     each restored item is renamed into the data dir.
 * 5. `done`       `restore-in-progress/` is removed.
 *
 * Every step is one rename followed by an fsync of the folders involved, and is skipped when already
 * done, so finishing after a crash at any point — or after a crash while finishing — ends with the
 * restored data in place and the old data whole in `replaced-<time>/`. Step 3 runs only while no
 * restored item has been put in yet; after that, an item found in the data dir is a restored one.
 *
 * A failure while running (not a crash: a rename refused, e.g. a folder on another disk) undoes the
 * swap in reverse and removes `restore-in-progress/` last, so the old data is back in place.
 */
import { lstat, mkdir, mkdtemp, open, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { Readable } from 'node:stream'
import { systemClock, type Clock } from '../../clock'
import { DIR_MODE, FILE_MODE, syncDir } from '../config/durable-json-file'
import { dataPaths } from '../data-paths'
import type { BackupManifest } from './manifest'
import { ATTACHMENTS_DIR, CONFIG_ENTRY, DATABASE_ENTRY, MEDIA_DIR } from './manifest'
import { extractBackup, type ExtractedBackup } from './verify'

/** The journal folder of a restore being put in place (see the module doc). */
export const RESTORE_DIR = 'restore-in-progress'
const PLAN = 'plan.json'
const FILES = 'files'

/**
 * The files of a 0.1 data dir not imported yet (test/fixtures/legacy-0.1.0): moved aside too, or the
 * import of the next start would pour them into the restored database.
 */
const LEGACY_ITEMS = ['chatapp.json', 'chatapp.journal', 'runtime.json', 'runtime.journal', 'messages', 'sessions', 'webhook-outbox.jsonl']

/** What is moved aside: the data of a data dir (backups/, tmp/, the lock and earlier set-asides stay). */
export const REPLACED_ITEMS = [
  DATABASE_ENTRY,
  `${DATABASE_ENTRY}-wal`,
  `${DATABASE_ENTRY}-shm`,
  `${DATABASE_ENTRY}-journal`,
  CONFIG_ENTRY,
  ATTACHMENTS_DIR,
  MEDIA_DIR,
  ...LEGACY_ITEMS
] as const

/** What a restore puts in (config.json only when the backup has one). */
const RESTORED_ITEMS: readonly string[] = [CONFIG_ENTRY, DATABASE_ENTRY, ATTACHMENTS_DIR, MEDIA_DIR]

/** A step of the restore as the module doc names it: `verified`, `staged`, `aside:<item>`, `in:<item>`, `done`. */
export type RestoreStep = string

export interface RestoreOptions {
  /** Called after each step (logs; tests stop the process there). */
  onStep?: (step: RestoreStep) => void | Promise<void>
  /** The clock of the replaced-<time>/ name. */
  clock?: Clock
}

export interface RestoreResult {
  manifest: BackupManifest
  /** Where the data that was in place went (`<dataDir>/replaced-<time>`). */
  replacedDir: string
}

interface Plan {
  /** Name of the folder in the data dir the current data goes to. */
  replaced: string
  /** Name of the data dir's folder holding the items to put in (a revert); default: the journal's files/. */
  from?: string
  /** The restored items, in the order they go in. */
  items: string[]
  /** The backup being restored (for a person reading the folder). */
  manifest?: Pick<BackupManifest, 'app' | 'created_at'>
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw err
  }
}

/** fsyncs every file and folder under `dir`, so a rename of `dir` never exposes unwritten bytes. */
async function syncTree(dir: string): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name)
    if (e.isDirectory()) await syncTree(path)
    else if (e.isFile()) {
      const fh = await open(path, 'r')
      try {
        await fh.sync()
      } finally {
        await fh.close()
      }
    }
  }
  await syncDir(dir)
}

/** `replaced-2025-01-31T02-00-00.123Z`: sortable, and valid on every file system. */
function replacedName(clock: Clock): string {
  return `replaced-${new Date(clock.now()).toISOString().replace(/:/g, '-')}`
}

/** A backup verified and unpacked in tmp/, ready to replace the data (or to be discarded). */
export interface PreparedRestore {
  readonly manifest: BackupManifest
  /** Puts it in place (steps 2–5 of the module doc). The data dir must not be in use. */
  commit(opts?: RestoreOptions): Promise<RestoreResult>
  /** Removes the unpacked files (when not committed). */
  discard(): Promise<void>
}

/**
 * Verifies and unpacks `archive` (a file or a stream) into `dataDir`'s tmp/ (step 1), while the app
 * may still be running. Throws what {@link extractBackup} throws; nothing of the data dir changes.
 */
export async function prepareRestore(dataDir: string, archive: string | Readable, opts: RestoreOptions = {}): Promise<PreparedRestore> {
  const extracted = await extractBackup(archive, { tmpDir: dataPaths(dataDir).tmp })
  try {
    // A restored data dir has every folder, even one the backup had no file in.
    for (const d of [ATTACHMENTS_DIR, MEDIA_DIR]) await mkdir(join(extracted.files, d), { recursive: true, mode: DIR_MODE })
    const items = RESTORED_ITEMS.filter((i) => i !== CONFIG_ENTRY || extracted.manifest.files.some((f) => f.path === CONFIG_ENTRY))
    const plan: Plan = {
      replaced: replacedName(opts.clock ?? systemClock),
      items,
      manifest: { app: extracted.manifest.app, created_at: extracted.manifest.created_at }
    }
    await writeFile(join(extracted.root, PLAN), JSON.stringify(plan, null, 2) + '\n', { mode: FILE_MODE })
    await syncTree(extracted.root)
  } catch (err) {
    await extracted.dispose()
    throw err
  }
  await opts.onStep?.('verified')
  return preparedRestore(dataDir, extracted)
}

function preparedRestore(dataDir: string, extracted: ExtractedBackup): PreparedRestore {
  let used = false
  return {
    manifest: extracted.manifest,
    async commit(opts = {}) {
      if (used) throw new Error('This restore was already committed or discarded')
      used = true
      // An earlier restore cut short is finished first: the plan folder's name is fixed.
      await finishInterruptedRestore(dataDir, opts)
      const journal = join(dataDir, RESTORE_DIR)
      await rename(extracted.root, journal)
      await syncDir(dataDir)
      await syncDir(dataPaths(dataDir).tmp)
      await opts.onStep?.('staged')
      const plan = await readPlan(journal)
      try {
        await complete(dataDir, plan, opts)
      } catch (err) {
        await undo(dataDir, plan).catch((undoErr: unknown) => {
          throw new Error(
            `The restore failed (${(err as Error).message}) and could not be undone (${(undoErr as Error).message}). ` +
              `The next start of the app finishes it; the previous data is in ${join(dataDir, plan.replaced)}.`,
            { cause: err }
          )
        })
        throw err
      }
      return { manifest: extracted.manifest, replacedDir: join(dataDir, plan.replaced) }
    },
    async discard() {
      if (used) return
      used = true
      await extracted.dispose()
    }
  }
}

/**
 * Restores `archive` into `dataDir` (the whole of the module doc). The data dir must not be in use
 * (hold its lock: src/main/store/data-dir-lock.ts). Throws {@link BackupArchiveError} for a refused
 * archive and StorageFullError when the disk cannot hold it — in both cases with nothing changed.
 */
export async function restoreBackup(dataDir: string, archive: string | Readable, opts: RestoreOptions = {}): Promise<RestoreResult> {
  const prepared = await prepareRestore(dataDir, archive, opts)
  try {
    return await prepared.commit(opts)
  } finally {
    await prepared.discard()
  }
}

async function readPlan(journal: string): Promise<Plan> {
  try {
    const plan = JSON.parse(await readFile(join(journal, PLAN), 'utf8')) as Plan
    const folder = /^replaced-[\w.-]+$/
    if (typeof plan.replaced !== 'string' || !folder.test(plan.replaced) || (plan.from !== undefined && !folder.test(plan.from)) || !Array.isArray(plan.items) || !plan.items.every((i) => (REPLACED_ITEMS as readonly string[]).includes(i))) throw new Error('it is not a restore plan')
    return plan
  } catch (err) {
    throw new Error(
      `The data dir holds a restore that was cut short (${journal}), but its plan cannot be read (${(err as Error).message}). ` +
        'Move that folder out of the data dir to start with the data in place.',
      { cause: err }
    )
  }
}

/** Renames `name` of the data dir into the replaced folder (under a free name if taken), durably. */
async function moveAside(dataDir: string, replaced: string, name: string): Promise<void> {
  let target = join(replaced, name)
  for (let n = 1; await exists(target); n++) target = join(replaced, `${name}.${n}`)
  await rename(join(dataDir, name), target)
  await syncDir(replaced)
  await syncDir(dataDir)
}

/** Steps 3–5 of the module doc, each skipped when already done. */
async function complete(dataDir: string, plan: Plan, opts: RestoreOptions): Promise<void> {
  const journal = join(dataDir, RESTORE_DIR)
  const files = plan.from ? join(dataDir, plan.from) : join(journal, FILES)
  const replaced = join(dataDir, plan.replaced)
  await mkdir(replaced, { recursive: true, mode: DIR_MODE })
  await syncDir(dataDir)
  const pending = await Promise.all(plan.items.map((i) => exists(join(files, i))))
  if (pending.every(Boolean)) {
    for (const item of REPLACED_ITEMS) {
      if (!(await exists(join(dataDir, item)))) continue
      await moveAside(dataDir, replaced, item)
      await opts.onStep?.(`aside:${item}`)
    }
  }
  for (const item of plan.items) {
    if (!(await exists(join(files, item)))) continue
    // Present only if something recreated it after step 3 (a start of a release without this journal).
    if (await exists(join(dataDir, item))) await moveAside(dataDir, replaced, item)
    await rename(join(files, item), join(dataDir, item))
    await syncDir(files)
    await syncDir(dataDir)
    await opts.onStep?.(`in:${item}`)
  }
  // A revert's source folder is empty now.
  if (plan.from) await rmdir(files).catch(() => {})
  await rm(journal, { recursive: true, force: true })
  await syncDir(dataDir)
  await opts.onStep?.('done')
}

/** Reverses {@link complete} after a failure while running (see the module doc); the journal goes last. */
async function undo(dataDir: string, plan: Plan): Promise<void> {
  const journal = join(dataDir, RESTORE_DIR)
  const files = plan.from ? join(dataDir, plan.from) : join(journal, FILES)
  const replaced = join(dataDir, plan.replaced)
  for (const item of [...plan.items].reverse()) {
    if (!(await exists(join(files, item))) && (await exists(join(dataDir, item)))) await rename(join(dataDir, item), join(files, item))
  }
  for (const item of REPLACED_ITEMS) {
    if ((await exists(join(replaced, item))) && !(await exists(join(dataDir, item)))) await rename(join(replaced, item), join(dataDir, item))
  }
  await syncDir(dataDir)
  await rm(journal, { recursive: true, force: true })
  await syncDir(dataDir)
  await rmdir(replaced).catch(() => {})
}

/**
 * Puts back the data a restore moved aside (`replacedDir`, from {@link RestoreResult}), moving the
 * restored data aside in turn into a new replaced-<time>/ — for an app that cannot start on what it
 * restored. The same journal as a restore (its plan names `replacedDir` as the folder to take the
 * items from), so as crash-safe; the data dir must not be in use.
 * Resolves with the folder the restored data went to.
 */
export async function revertRestore(dataDir: string, replacedDir: string, opts: RestoreOptions = {}): Promise<string> {
  await finishInterruptedRestore(dataDir, opts)
  const tmp = dataPaths(dataDir).tmp
  await mkdir(tmp, { recursive: true, mode: DIR_MODE })
  const root = await mkdtemp(join(tmp, 'revert-'))
  const present = await Promise.all(REPLACED_ITEMS.map((i) => exists(join(replacedDir, i))))
  const plan: Plan = {
    replaced: replacedName(opts.clock ?? systemClock),
    items: REPLACED_ITEMS.filter((_, k) => present[k])
  }
  if (plan.replaced === basename(replacedDir)) plan.replaced += '-restored'
  // The journal names the folder to take the items from; nothing moves until it is committed.
  plan.from = basename(replacedDir)
  await writeFile(join(root, PLAN), JSON.stringify(plan, null, 2) + '\n', { mode: FILE_MODE })
  await syncTree(root)
  const journal = join(dataDir, RESTORE_DIR)
  await rename(root, journal)
  await syncDir(dataDir)
  await syncDir(tmp)
  await opts.onStep?.('staged')
  await complete(dataDir, plan, opts)
  return join(dataDir, plan.replaced)
}

/**
 * Completes a restore that a crash interrupted after its commit point (steps 3–5 of the module doc);
 * does nothing when there is none. Call it before the data dir's files are opened (openStorage does).
 * Resolves with the replaced-<time>/ folder of the restore it finished, or null.
 */
export async function finishInterruptedRestore(dataDir: string, opts: RestoreOptions = {}): Promise<string | null> {
  const journal = join(dataDir, RESTORE_DIR)
  if (!(await exists(journal))) return null
  const plan = await readPlan(journal)
  await complete(dataDir, plan, opts)
  return join(dataDir, plan.replaced)
}
