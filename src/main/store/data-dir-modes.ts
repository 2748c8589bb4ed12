/**
 * The data dir holds secrets (the API token, instances' access tokens, webhook secrets, the SMTP
 * password, WhatsApp credentials and keys): its folders are 0700 and its files 0600, readable by the
 * owner only. New ones are created so; this fixes what an older version (or a copy) left open, at start.
 * POSIX only: Windows keeps its own ACLs (chmod would only toggle read-only there).
 */
import { chmod, lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { DIR_MODE, FILE_MODE } from './config/durable-json-file'

/**
 * proper-lockfile's lock: an empty folder made anew at every start with the process umask. It holds
 * nothing secret, and counting it would report an "open" data dir on every fresh start.
 */
const LOCK_DIR = 'chatapp.lock'

/** Makes every folder under `dir` (itself included) 0700 and every file 0600 where group or others had access. Answers how many it changed. */
export async function secureDataDir(dir: string): Promise<number> {
  if (process.platform === 'win32') return 0
  let changed = 0
  const stack = [dir]
  while (stack.length > 0) {
    const current = stack.pop()!
    const st = await lstat(current)
    if (st.isSymbolicLink()) continue
    if (st.isDirectory()) {
      if ((st.mode & 0o077) !== 0) {
        await chmod(current, DIR_MODE)
        changed++
      }
      for (const entry of await readdir(current)) if (!(current === dir && entry === LOCK_DIR)) stack.push(join(current, entry))
    } else if (st.isFile() && (st.mode & 0o077) !== 0) {
      await chmod(current, FILE_MODE)
      changed++
    }
  }
  return changed
}
