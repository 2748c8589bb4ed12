/**
 * Serves the built renderer (`out/renderer`) at `/` for the headless server's web mode, with the
 * same Content-Security-Policy the Electron window uses. Registered in the API's public scope: the UI
 * files hold no data, and everything they fetch goes through `/rpc` (account scope) with the bearer
 * token the user logs in with.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join, posix, sep } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { CONTENT_SECURITY_POLICY } from '../../shared/csp'

/** Whether `dir` holds a built UI. */
export function hasBuiltUi(dir: string): boolean {
  return existsSync(join(dir, 'index.html'))
}

/** The files under `dir`, as paths relative to it with `/` separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => posix.join(...join(entry.parentPath, entry.name).slice(dir.length + 1).split(sep)))
    .sort()
}

/**
 * A Fastify plugin serving `dir` at `/`: `index.html` at `/`, every file at its own path (one route
 * per file: no wildcard that would shadow API 404s). A file whose path an API route already has is
 * not served (the API wins, and the server starts), so register this after the API routes.
 */
export function webUiPlugin(dir: string) {
  return async (app: FastifyInstance): Promise<void> => {
    // Only reply.sendFile: the routes are made here, so that they can give way to the API's.
    await app.register(fastifyStatic, {
      root: dir,
      serve: false,
      setHeaders: (res, path) => {
        if (path.endsWith('.html')) {
          res.header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
          res.header('Cache-Control', 'no-store')
        }
        res.header('X-Content-Type-Options', 'nosniff')
        res.header('Referrer-Policy', 'no-referrer')
      }
    })
    const shadowed: string[] = []
    for (const file of filesUnder(dir)) {
      for (const url of file === 'index.html' ? ['/', '/index.html'] : [`/${file}`]) {
        if (app.hasRoute({ method: 'GET', url })) {
          shadowed.push(url)
          continue
        }
        app.route({ method: ['GET', 'HEAD'], url, schema: { hide: true }, handler: (_req, reply) => reply.sendFile(file) })
      }
    }
    if (shadowed.length > 0) app.log.warn({ dir, paths: shadowed }, 'web UI files not served: API routes have their paths')
  }
}
