/**
 * The product's version fetcher over the library's real `fetchLatestWaWebVersion` (lib/Utils/generics.js),
 * with a loopback HTTPS server standing in for `https://web.whatsapp.com/sw.js`: the library's URL is
 * fixed, so the request is routed to the server by the fetch's `dispatcher` (the test media host's
 * certificate, trusted through NODE_EXTRA_CA_CERTS in vitest.config.ts; the name is not checked, the
 * certificate is for 127.0.0.1). The last good version lives in a real configuration document.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:tls'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_CONNECTION_CONFIG, fetchLatestWaWebVersion } from 'baileys'
import { Agent } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { libraryVersionFetcher, WaVersionSource } from '../../../src/main/channel/baileys/wa-version'
import { ConfigStore } from '../../../src/main/store/config/config-store'
import { AppSettingsRepo } from '../../../src/main/store/repos/config-repos'

const tls = (name: string): Buffer => readFileSync(new URL(`../../support/wa-server/tls/${name}`, import.meta.url))

/** What the page answers next: a service worker naming `revision`, an HTTP error, or a page without the revision. */
let page: { revision: number } | { status: number } | 'no-revision' = { revision: 1_050_000_010 }
const requests: string[] = []
const server = createServer({ cert: tls('media-host.crt'), key: tls('media-host.key') }, (req, res) => {
  requests.push(`${req.headers.host}${req.url}`)
  if (page === 'no-revision') return void res.end('self.addEventListener("fetch", () => {})')
  if ('status' in page) return void res.writeHead(page.status).end()
  // sw.js embeds the build's config as escaped JSON: \"client_revision\":1050000010
  res.end(`self.__swData=JSON.parse("{\\"client_revision\\":${page.revision},\\"other\\":1}");`)
})
let dispatcher: Agent

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  dispatcher = new Agent({
    connect: (_opts, done) => {
      const socket = connect({ host: '127.0.0.1', port, ALPNProtocols: ['http/1.1'], checkServerIdentity: () => undefined })
      socket.once('secureConnect', () => done(null, socket)).once('error', (err) => done(err, null))
    }
  })
})

afterAll(async () => {
  await dispatcher.close()
  await new Promise((resolve) => server.close(resolve))
})

/** The library's function, its requests sent to the loopback server. */
const throughLoopback = (options?: RequestInit) => fetchLatestWaWebVersion({ ...options, dispatcher } as RequestInit)

describe("the library's answers from WhatsApp's page (sw.js)", () => {
  it('keeps the revision the page names, and keeps it over an error page and a page without it, across restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-wapage-'))
    try {
      page = { revision: 1_050_000_010 }
      let config = await ConfigStore.open(join(dir, 'config.json'))
      expect(await new WaVersionSource({ fetch: libraryVersionFetcher(5000, throughLoopback), memory: new AppSettingsRepo(config) }).get()).toEqual([2, 3000, 1_050_000_010])
      expect(requests.at(-1)).toBe('web.whatsapp.com/sw.js')
      await config.close()

      for (const answer of [{ status: 503 }, 'no-revision'] as const) {
        page = answer
        // What the library answers then: its bundled version, isLatest false.
        expect(await throughLoopback()).toMatchObject({ version: DEFAULT_CONNECTION_CONFIG.version, isLatest: false })
        config = await ConfigStore.open(join(dir, 'config.json'))
        expect(await new WaVersionSource({ fetch: libraryVersionFetcher(5000, throughLoopback), memory: new AppSettingsRepo(config) }).get()).toEqual([2, 3000, 1_050_000_010])
        await config.close()
      }
      config = await ConfigStore.open(join(dir, 'config.json'))
      expect(new AppSettingsRepo(config).waWebVersion()?.version).toEqual([2, 3000, 1_050_000_010])
      await config.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('a 405 refresh replaces the kept version with the one the page names now', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-wapage-'))
    const config = await ConfigStore.open(join(dir, 'config.json'))
    try {
      const repo = new AppSettingsRepo(config)
      page = { revision: 1_050_000_010 }
      let now = 0
      const v = new WaVersionSource({ fetch: libraryVersionFetcher(5000, throughLoopback), memory: repo, now: () => now })
      await v.get()
      page = { revision: 1_050_000_011 }
      now = 61_000
      expect(await v.refresh()).toEqual([2, 3000, 1_050_000_011])
      expect(repo.waWebVersion()).toEqual({ version: [2, 3000, 1_050_000_011], fetchedAt: new Date(61_000).toISOString() })
    } finally {
      await config.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
