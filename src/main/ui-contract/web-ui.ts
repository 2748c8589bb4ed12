/**
 * Serves the built renderer (`out/renderer`) at `/` for the headless server's web mode, with the
 * same Content-Security-Policy the Electron window uses. The UI files are public (they hold no
 * data); everything they fetch goes through `/rpc` with the bearer token the user logs in with.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { CONTENT_SECURITY_POLICY } from '../../shared/csp'

/** Whether `dir` holds a built UI. */
export function hasBuiltUi(dir: string): boolean {
  return existsSync(join(dir, 'index.html'))
}

/** Paths to pass as `publicPaths` (exact) and `publicPrefixes` so the UI loads without the token. */
export function webUiPublicPaths(dir: string): { publicPaths: string[]; publicPrefixes: string[] } {
  const top = hasBuiltUi(dir) ? readdirSync(dir, { withFileTypes: true }) : []
  return {
    publicPaths: ['/', ...top.filter((e) => e.isFile()).map((e) => `/${e.name}`)],
    publicPrefixes: top.filter((e) => e.isDirectory()).map((e) => `/${e.name}`)
  }
}

/** A Fastify plugin serving `dir` at `/` (one route per file: no wildcard that would shadow API 404s). */
export function webUiPlugin(dir: string) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(fastifyStatic, {
      root: dir,
      prefix: '/',
      wildcard: false,
      index: 'index.html',
      setHeaders: (res, path) => {
        if (path.endsWith('.html')) {
          res.header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
          res.header('Cache-Control', 'no-store')
        }
        res.header('X-Content-Type-Options', 'nosniff')
        res.header('Referrer-Policy', 'no-referrer')
      }
    })
  }
}
