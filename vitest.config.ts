import { createHash } from 'node:crypto'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * The test-only CA of the fake WhatsApp media host (test/support/wa-server/tls). Node reads
 * NODE_EXTRA_CA_CERTS once, at process start, for both `https` and `fetch` (undici): setting it here,
 * while the config loads, makes every forked test worker and every child process a test spawns trust
 * the host, without touching product code. A CA file the caller already set is kept (both are trusted).
 */
function trustTestCa(): void {
  const testCa = fileURLToPath(new URL('./test/support/wa-server/tls/ca.crt', import.meta.url))
  const existing = process.env.NODE_EXTRA_CA_CERTS
  if (!existing || existing === testCa) {
    process.env.NODE_EXTRA_CA_CERTS = testCa
    return
  }
  const bundle = `${readFileSync(existing, 'utf8')}\n${readFileSync(testCa, 'utf8')}`
  // Named by content, so runs share one file instead of leaving one per run.
  const combined = join(tmpdir(), `chatapp-test-ca-${createHash('sha256').update(bundle).digest('hex').slice(0, 16)}.pem`)
  if (!existsSync(combined)) {
    // Written aside, then renamed: two runs starting at once never read a half-written file.
    writeFileSync(`${combined}.${process.pid}`, bundle)
    renameSync(`${combined}.${process.pid}`, combined)
  }
  process.env.NODE_EXTRA_CA_CERTS = combined
}
trustTestCa()

/**
 * Every test runs in plain Node. `electron` is aliased to a mock because the
 * real package downloads its binary on first import, which this machine (and CI)
 * cannot do; the core never imports it anyway.
 */
export default defineConfig({
  resolve: {
    alias: {
      electron: fileURLToPath(new URL('./test/mocks/electron.ts', import.meta.url)),
      'virtual:contract-methods': fileURLToPath(new URL('./test/mocks/contract-methods.ts', import.meta.url))
    }
  },
  test: {
    include: ['test/**/*.test.ts'],
    // One real PostgreSQL server per run for the data layer's tests on both databases; the SQLite
    // threads' code bundled once (test/support/sqlite-thread-global-setup.ts).
    globalSetup: ['test/support/postgres-global-setup.ts', 'test/support/sqlite-thread-global-setup.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // expect.poll waits for a condition; 1 s (vitest's default) is shorter than a busy 2-core CI
    // machine sometimes needs for an event to reach a browser page. A test that needs more says so.
    expect: { poll: { timeout: 10_000, interval: 50 } },
    pool: 'forks',
    // Two test files at a time even on two CPUs (vitest's default there is one): most files wait on
    // child processes, sockets, Chromium and the disk, so two share the CPUs well — the whole suite in
    // 653 s instead of 1,247 s on the 2-CPU machine, every test passing. More CPUs, vitest's default.
    maxWorkers: Math.max(2, availableParallelism() - 1)
  }
})
