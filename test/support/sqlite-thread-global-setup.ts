/**
 * Vitest global setup: the SQLite threads' code (src/main/store/db/sqlite-thread/thread.ts and what it
 * hosts: the repositories, Kysely) bundled once per run with esbuild, as the app's build makes
 * out/main/sqlite-thread.js, and named by `CHATAPP_SQLITE_THREAD_SCRIPT` for every test file and the
 * serve processes they start. From the sources, each thread would otherwise load its module graph
 * through tsx: seconds per database opened on a busy machine, instead of tens of ms.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

let dir: string | undefined

export async function setup(): Promise<void> {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-sqlite-thread-'))
  const outfile = join(dir, 'sqlite-thread.mjs')
  await build({
    entryPoints: [fileURLToPath(new URL('../../src/main/store/db/sqlite-thread/thread.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'warning',
    // A CommonJS dependency bundled into ESM requires Node's built-ins through this.
    banner: { js: "import { createRequire as __chatappRequire } from 'node:module'; const require = __chatappRequire(import.meta.url);" }
  })
  process.env.CHATAPP_SQLITE_THREAD_SCRIPT = outfile
}

export async function teardown(): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true })
}
