/**
 * Serves the built renderer (`out/renderer`) at `/` for the headless server's web mode, with the
 * same Content-Security-Policy the Electron window uses. Registered in the API's public scope: the UI
 * files hold no data, and everything they fetch goes through `/rpc` (account scope) with the bearer
 * token the user logs in with.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { CONTENT_SECURITY_POLICY } from '../../shared/csp'

/** Whether `dir` holds a built UI. */
export function hasBuiltUi(dir: string): boolean {
  return existsSync(join(dir, 'index.html'))
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
