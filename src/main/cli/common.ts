/**
 * What the command-line tools share: the data dir they act on (`--data-dir`, else CHATAPP_DATA_DIR,
 * else the app's default folder: the same rule as the app's), and how they talk (plain lines; errors
 * on stderr with the way out; exit codes 0 done, 1 failed or refused, 2 wrong usage or data dir in use).
 */
import { resolve } from 'node:path'
import { defaultDataDir } from '../config'

export interface CliIo {
  out(line: string): void
  err(line: string): void
}

export const consoleIo: CliIo = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n')
}

export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

/** The data dir: the flag, else CHATAPP_DATA_DIR, else the app's default. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(flag?.trim() || env.CHATAPP_DATA_DIR?.trim() || defaultDataDir(env))
}

/** "12.3 MB" or "45 KB" for a byte count. */
export function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`
}
