/**
 * Build of the three Electron parts (docs/design.md §12) into out/:
 * - main: src/main/index.ts as ESM (the thin shell; the core is bundled with it), and src/main/serve.ts,
 *   the headless server, and src/main/cli/{backup,restore,db-copy,login-link}.ts, the command-line tools, from the same
 *   build (shared chunks), and the SQLite threads' code (sqlite-thread.js),
 * - preload: src/preload/index.ts as CommonJS `.cjs`, because sandboxed preloads cannot be ESM,
 * - renderer: src/renderer (React + Mantine), also served by the headless server's web mode.
 */
import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import type { Plugin } from 'vite'
import { CONTENT_SECURITY_POLICY, DEV_CONTENT_SECURITY_POLICY } from './src/shared/csp'
import { contractMethods } from './contract-methods.plugin'

/**
 * Writes the CSP meta tag of index.html from src/shared/csp.ts (one source for the meta tag, the
 * server header and the Electron header); the dev server gets the relaxed development policy.
 */
function cspMeta(): Plugin {
  let dev = false
  return {
    name: 'chatapp-csp-meta',
    configResolved(config) {
      dev = config.command === 'serve'
    },
    transformIndexHtml(html) {
      const policy = dev ? DEV_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY
      // frame-ancestors is ignored (and warned about) in a meta tag; the header carries it.
      const meta = policy.replace(/; frame-ancestors [^;]+/, '')
      return html.replace(/(<meta\s+http-equiv="Content-Security-Policy"\s+content=")[^"]*(")/, `$1${meta}$2`)
    }
  }
}

export default defineConfig({
  main: {
    build: {
      // The core's runtime dependencies ship in node_modules (electron-builder packs `dependencies`),
      // except TypeBox, bundled: its hundreds of small ES modules took ~250 ms of every start to load
      // one by one (issue 11 §13); in the bundle they cost a few ms.
      externalizeDeps: { exclude: ['typebox'] },
      outDir: 'out/main',
      rollupOptions: {
        // index: the Electron shell; serve: the headless server (`npm run serve` runs it with plain node);
        // backup, restore, db-copy, login-link: the command-line tools (`npm run backup`, `npm run restore`,
        // `npm run db:copy`, `npm run login-link`); sqlite-thread: the code of the SQLite worker threads
        // (src/main/store/db/sqlite-thread/thread.ts), started by file name.
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          serve: resolve(__dirname, 'src/main/serve.ts'),
          backup: resolve(__dirname, 'src/main/cli/backup.ts'),
          restore: resolve(__dirname, 'src/main/cli/restore.ts'),
          'db-copy': resolve(__dirname, 'src/main/cli/db-copy.ts'),
          'login-link': resolve(__dirname, 'src/main/cli/login-link.ts'),
          'sqlite-thread': resolve(__dirname, 'src/main/store/db/sqlite-thread/thread.ts')
        },
        output: { format: 'es' }
      }
    }
  },
  preload: {
    plugins: [contractMethods()],
    build: {
      // A sandboxed preload can require only `electron`: bundle everything else into it.
      externalizeDeps: false,
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' }
      }
    }
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    plugins: [react(), cspMeta()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      emptyOutDir: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } }
    }
  }
})
