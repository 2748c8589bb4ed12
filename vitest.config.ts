import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * Every test runs in plain Node. `electron` is aliased to a mock because the
 * real package downloads its binary on first import, which this machine (and CI)
 * cannot do; the core never imports it anyway.
 */
export default defineConfig({
  resolve: {
    alias: {
      electron: fileURLToPath(new URL('./test/mocks/electron.ts', import.meta.url))
    }
  },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks'
  }
})
