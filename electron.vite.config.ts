/**
 * Build of the three Electron parts (DESIGN.md §12) into out/:
 * - main: src/main/index.ts as ESM (the thin shell; the core is bundled with it),
 * - preload: src/preload/index.ts as CommonJS `.cjs`, because sandboxed preloads cannot be ESM,
 * - renderer: src/renderer (React + Mantine), also served by the headless server's web mode.
 */
import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

export default defineConfig({
  main: {
    build: {
      // The core's runtime dependencies ship in node_modules (electron-builder packs `dependencies`).
      externalizeDeps: true,
      outDir: 'out/main',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/main/index.ts') },
        output: { format: 'es' }
      }
    }
  },
  preload: {
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
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      emptyOutDir: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } }
    }
  }
})
