/**
 * The running app's own address in its data dir (`app-address.json`, `{"url":"http://host:port"}`),
 * written once the API listens and removed when it stops, so that a command run beside it
 * (`npm run login-link`) links to where the app really listens — another CHATAPP_PORT, or a free port
 * picked with 0 — without being given the same variables. Only read while the data dir's lock is held
 * by a live process (a file a killed app left behind names nothing). 0600, replaced atomically.
 */
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { FILE_MODE } from './config/durable-json-file'

/** The file's name in the data dir. */
export const APP_ADDRESS_FILE = 'app-address.json'

/** Records `url` (`http://host:port`) as the address of the app running on `dataDir`. */
export async function writeAppAddress(dataDir: string, url: string): Promise<void> {
  await writeFileAtomic(join(dataDir, APP_ADDRESS_FILE), `${JSON.stringify({ url })}\n`, { mode: FILE_MODE })
}

/** The address recorded in `dataDir`, or null when there is none or it is not an http(s) URL. */
export async function readAppAddress(dataDir: string): Promise<string | null> {
  try {
    const { url } = JSON.parse(await readFile(join(dataDir, APP_ADDRESS_FILE), 'utf8')) as { url?: unknown }
    const parsed = typeof url === 'string' ? URL.parse(url) : null
    return parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:') ? parsed.origin : null
  } catch {
    return null
  }
}

/** Forgets the address (the app stops); a missing file is fine. */
export async function removeAppAddress(dataDir: string): Promise<void> {
  await rm(join(dataDir, APP_ADDRESS_FILE), { force: true })
}
