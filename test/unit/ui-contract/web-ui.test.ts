/**
 * Web mode serving: the built UI at `/` (and its assets) without the token and with the CSP header,
 * while the API and RPC routes still need the bearer token.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildApiServer } from '../../../src/main/api/server'
import { startCore, type Core } from '../../../src/main/core'
import { webUiPlugin } from '../../../src/main/ui-contract/web-ui'
import { rpcPlugin } from '../../../src/main/ui-contract/http-transport'
import { createHandlers } from '../../../src/main/ui-contract/handlers'
import { CONTENT_SECURITY_POLICY } from '../../../src/shared/csp'

let core: Core
let app: FastifyInstance
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-webui-'))
  const ui = join(dir, 'ui')
  await mkdir(join(ui, 'assets'), { recursive: true })
  await writeFile(join(ui, 'index.html'), '<!doctype html><title>UI</title>')
  await writeFile(join(ui, 'favicon.png'), 'png')
  await writeFile(join(ui, 'assets', 'app.js'), 'console.log(1)')
  // Folders named like API routes: their files are public, the API routes stay behind the token.
  await mkdir(join(ui, 'chatapp'), { recursive: true })
  await writeFile(join(ui, 'chatapp', 'logo.svg'), '<svg/>')
  await mkdir(join(ui, 'rpc'), { recursive: true })
  await writeFile(join(ui, 'rpc', 'note.txt'), 'x')
  core = await startCore({ dataDir: join(dir, 'data'), defaultChannel: 'sandbox' })
  const handlers = createHandlers(core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' })
  app = await buildApiServer(core, { host: '127.0.0.1', version: 'test', publicPlugins: [webUiPlugin(ui)], accountPlugins: [rpcPlugin(core, handlers)] })
  await app.ready()
})
afterAll(async () => {
  await app.close()
  await core.close()
  await rm(dir, { recursive: true, force: true })
})

describe('web UI plugin', () => {
  it('serves the UI files without the token, with the CSP on the page', async () => {
    const page = await app.inject({ url: '/' })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('<title>UI</title>')
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect((await app.inject({ url: '/assets/app.js' })).statusCode).toBe(200)
    expect((await app.inject({ url: '/favicon.png' })).statusCode).toBe(200)
  })

  it('keeps the API, the RPC and the event stream behind the token', async () => {
    expect((await app.inject({ url: '/chatapp' })).statusCode).toBe(401)
    expect((await app.inject({ method: 'POST', url: '/rpc/instances.list', payload: {} })).statusCode).toBe(401)
    expect((await app.inject({ url: '/rpc/events' })).statusCode).toBe(401)
    expect((await app.inject({ url: '/assets/../../data/chatapp.json' })).statusCode).not.toBe(200)
    const ok = await app.inject({ method: 'POST', url: '/rpc/instances.list', payload: {}, headers: { authorization: `Bearer ${core.account.token()}` } })
    expect(ok.json()).toEqual({ ok: true, data: [] })
  })

  it('guards routes by scope, not by URL: a UI folder named chatapp or rpc opens nothing', async () => {
    expect((await app.inject({ url: '/chatapp/logo.svg' })).statusCode).toBe(200)
    expect((await app.inject({ url: '/rpc/note.txt' })).statusCode).toBe(200)
    const list = await app.inject({ url: '/chatapp' })
    expect(list.statusCode).toBe(401)
    expect(list.body).not.toContain('access_token')
    expect((await app.inject({ url: '/chatapp/instance' })).statusCode).toBe(401)
    expect((await app.inject({ method: 'POST', url: '/rpc/apiToken.get', payload: {} })).statusCode).toBe(401)
  })
})

describe('a UI folder with files at API paths', () => {
  it('starts, and the API routes win: chatapp/index.html is not served at /chatapp, nor a file named like a route', async () => {
    const ui = join(dir, 'ui-clash')
    await mkdir(join(ui, 'chatapp'), { recursive: true })
    await writeFile(join(ui, 'index.html'), '<!doctype html><title>UI</title>')
    await writeFile(join(ui, 'chatapp', 'index.html'), '<!doctype html><title>Clash</title>')
    await writeFile(join(ui, 'chatapp', 'instance'), 'not the API')
    await writeFile(join(ui, 'health'), 'not the API')
    await writeFile(join(ui, 'chatapp', 'logo.svg'), '<svg/>')
    const clashCore = await startCore({ dataDir: join(dir, 'data-clash'), defaultChannel: 'sandbox' })
    try {
      const server = await buildApiServer(clashCore, { host: '127.0.0.1', version: 'test', publicPlugins: [webUiPlugin(ui)] })
      await server.ready()
      try {
        const auth = { authorization: `Bearer ${clashCore.account.token()}` }
        expect((await server.inject({ url: '/' })).body).toContain('<title>UI</title>')
        for (const url of ['/chatapp', '/chatapp/']) {
          const anonymous = await server.inject({ url })
          expect(anonymous.statusCode, url).toBe(401)
          expect(anonymous.json().error.code).toBe('UNAUTHORIZED')
          expect((await server.inject({ url, headers: auth })).json()).toMatchObject({ status: true, data: [] })
        }
        expect((await server.inject({ url: '/chatapp/instance' })).json().error.code).toBe('UNAUTHORIZED')
        expect((await server.inject({ url: '/health' })).json()).toMatchObject({ status: true, message: 'ok' })
        // Files at paths of their own are still served.
        expect((await server.inject({ url: '/chatapp/logo.svg' })).statusCode).toBe(200)
      } finally {
        await server.close()
      }
    } finally {
      await clashCore.close()
    }
  })
})
