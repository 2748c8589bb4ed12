/**
 * A SQLite thread started from the sources loads its modules as its process does, whatever V8 flags
 * the process runs with (`npm run bench` runs with --expose-gc, which a worker thread refuses).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { moduleLoadingArgs } from '../../../src/main/store/db/sqlite-thread/sqlite-thread'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

it('keeps the module-loading flags with their values and drops V8 and process flags', () => {
  expect(moduleLoadingArgs(['--expose-gc', '--import', 'tsx', '--max-old-space-size=512', '--require=./a.cjs', '-r', 'b', '--conditions', 'dev', '--inspect'])).toEqual(['--import', 'tsx', '--require=./a.cjs', '-r', 'b', '--conditions', 'dev'])
})

it('a process run with --expose-gc opens a database in its SQLite threads', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'chatapp-thread-args-'))
  try {
    const code = `import { openStorage } from './src/main/store/storage'; const s = await openStorage(${JSON.stringify(dir)}); console.log('OPENED', typeof globalThis.gc); await s.close()`
    const env = { ...process.env }
    // From the sources, as `npm run bench` starts them (not the bundle the test run made).
    delete env.CHATAPP_SQLITE_THREAD_SCRIPT
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, env, encoding: 'utf8' })
    expect(run.stderr).not.toMatch(/ERR_WORKER_INVALID_EXEC_ARGV/)
    expect(run.stdout.trim()).toBe('OPENED function')
    expect(run.status).toBe(0)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
