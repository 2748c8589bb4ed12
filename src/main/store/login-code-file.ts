/**
 * One-time login codes made outside the running app (`npm run login-link`, src/main/cli/): the
 * data dir's `login-codes.json`, which the app reads when a code is traded for the token (POST
 * /auth/login), so a command can hand the owner a login link whether the app runs or not. Only the
 * codes' sha256 are kept, with their expiry; the file is 0600 and replaced atomically (write-file-atomic).
 *
 * Shape: `{"codes":[{"sha256":"<hex>","expires_at":<epoch ms>}]}`. Expired entries are dropped at each
 * write. Two processes writing at the same moment may lose one code (the last rename wins): the
 * owner asks for another link; nothing else depends on the file.
 */
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { FILE_MODE } from './config/durable-json-file'

/** The file's name in the data dir. */
export const LOGIN_CODE_FILE = 'login-codes.json'

interface Entry {
  sha256: string
  expires_at: number
}

export class LoginCodeFile {
  /** This process's writes, one after the other. */
  private queue: Promise<unknown> = Promise.resolve()

  constructor(readonly path: string) {}

  /** The file of data dir `dataDir`. */
  static in(dataDir: string): LoginCodeFile {
    return new LoginCodeFile(join(dataDir, LOGIN_CODE_FILE))
  }

  /** Keeps `sha256` (hex) good until `expiresAt` (epoch ms); drops the entries expired at `now`. */
  add(sha256: string, expiresAt: number, now: number): Promise<void> {
    return this.serial(async () => {
      const live = (await this.read()).filter((e) => e.expires_at > now)
      await this.write([...live, { sha256, expires_at: expiresAt }])
    })
  }

  /**
   * Uses up `sha256`: true when the file held it unexpired at `now` (it is removed either way). A
   * missing or unreadable file holds no code.
   */
  take(sha256: string, now: number): Promise<boolean> {
    return this.serial(async () => {
      const entries = await this.read()
      if (entries.length === 0) return false
      const found = entries.find((e) => e.sha256 === sha256)
      const rest = entries.filter((e) => e !== found && e.expires_at > now)
      if (!found && rest.length === entries.length) return false
      if (rest.length === 0) await rm(this.path, { force: true })
      else await this.write(rest)
      return found !== undefined && found.expires_at > now
    })
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work)
    this.queue = next.catch(() => undefined)
    return next
  }

  private async read(): Promise<Entry[]> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw err
    }
    try {
      const codes = (JSON.parse(text) as { codes?: unknown }).codes
      return Array.isArray(codes) ? (codes as Array<Partial<Entry> | null>).filter((e): e is Entry => typeof e?.sha256 === 'string' && typeof e.expires_at === 'number') : []
    } catch {
      // A damaged file holds no usable code; the next add replaces it.
      return []
    }
  }

  private async write(entries: Entry[]): Promise<void> {
    await writeFileAtomic(this.path, JSON.stringify({ codes: entries }) + '\n', { mode: FILE_MODE, fsync: true })
  }
}
