/**
 * A loopback update feed for electron-updater, and electron-updater's real Linux (.deb) updater made to
 * run in plain Node. The feed serves what the release workflow publishes: `latest-linux.yml` (version,
 * the installer's name, base64 sha512 and size, release notes) and the installer's bytes. The updater
 * is electron-updater's DebUpdater with the two Electron pieces it normally takes from `electron`
 * replaced, as electron-builder's own updater tests do: the app facts (an AppAdapter over temp
 * folders) and the HTTP transport (Node's http instead of Electron's `net`, through
 * builder-util-runtime's HttpExecutor, which keeps the redirects, timeouts and sha512 check).
 */
import { createHash } from 'node:crypto'
import { request as httpRequest, createServer, type ClientRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest, type RequestOptions } from 'node:https'
import type { AddressInfo } from 'node:net'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HttpExecutor } from 'builder-util-runtime'
import yaml from 'js-yaml'
import { DebUpdater } from 'electron-updater'
import type { AppAdapter } from 'electron-updater/out/AppAdapter'
import { ElectronHttpExecutor } from 'electron-updater/out/electronHttpExecutor'

/** What the feed offers: a version and its installer bytes; `announcedSha512` overrides the true digest (a tampered file). */
export interface FeedRelease {
  version: string
  bytes: Buffer
  releaseNotes?: string
  announcedSha512?: string
}

export interface LoopbackFeed {
  /** `http://127.0.0.1:<port>/feed` (the generic provider's folder). */
  url: string
  /** Paths requested, without query strings. */
  requests: string[]
  publish(release: FeedRelease): void
  close(): Promise<void>
}

export const installerName = (version: string) => `chatapp-desk_${version}_amd64.deb`
export const sha512 = (bytes: Buffer) => createHash('sha512').update(bytes).digest('base64')

export async function startLoopbackFeed(): Promise<LoopbackFeed> {
  const files = new Map<string, Buffer>()
  const requests: string[] = []
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!
    requests.push(path)
    const body = files.get(path)
    if (!body) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-length': body.length }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed`
  return {
    url,
    requests,
    publish(r) {
      files.clear()
      const name = installerName(r.version)
      const digest = r.announcedSha512 ?? sha512(r.bytes)
      const info = {
        version: r.version,
        files: [{ url: name, sha512: digest, size: r.bytes.length }],
        path: name,
        sha512: digest,
        releaseDate: '2026-11-20T10:00:00.000Z',
        ...(r.releaseNotes ? { releaseNotes: r.releaseNotes } : {})
      }
      files.set('/feed/latest-linux.yml', Buffer.from(yaml.dump(info)))
      files.set(`/feed/${name}`, r.bytes)
    },
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

/**
 * electron-updater's own executor (its download: the sha512 check, the temp file) with requests made by
 * Node's http/https instead of Electron's `net`, and redirects followed the way builder-util-runtime
 * follows them for Node responses.
 */
class NodeHttpExecutor extends ElectronHttpExecutor {
  override createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void): ReturnType<ElectronHttpExecutor['createRequest']> {
    // Node's request stands where Electron's would: the executor only uses what both have.
    return (options.protocol === 'http:' ? httpRequest : httpsRequest)(options, callback) as unknown as ReturnType<ElectronHttpExecutor['createRequest']>
  }
  override addRedirectHandlers(...args: Parameters<HttpExecutor<ClientRequest>['addRedirectHandlers']>): void {
    HttpExecutor.prototype['addRedirectHandlers'].apply(this, args)
  }
}

export interface TestUpdater {
  updater: DebUpdater
  dir: string
  /** Where electron-updater keeps a downloaded installer. */
  pendingDir: string
  cleanup(): Promise<void>
}

/** electron-updater's DebUpdater for an installed `currentVersion`, in temp folders. */
export async function makeDebUpdater(currentVersion: string): Promise<TestUpdater> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-updater-'))
  await mkdir(join(dir, 'resources'))
  // As in the packages (electron-builder writes it from the publish config); the feed URL is set at run time.
  await writeFile(join(dir, 'resources', 'app-update.yml'), 'provider: generic\nurl: https://example.invalid/feed\nupdaterCacheDirName: chatapp-desk-updater\n')
  const app: AppAdapter = {
    version: currentVersion,
    name: 'Chatapp Desk',
    isPackaged: true,
    appUpdateConfigPath: join(dir, 'resources', 'app-update.yml'),
    userDataPath: join(dir, 'user-data'),
    baseCachePath: join(dir, 'cache'),
    whenReady: async () => {},
    relaunch: () => {},
    quit: () => {},
    onQuit: () => {}
  }
  const updater = new DebUpdater(null, app)
  ;(updater as unknown as { httpExecutor: unknown }).httpExecutor = new NodeHttpExecutor()
  return { updater, dir, pendingDir: join(dir, 'cache', 'chatapp-desk-updater', 'pending'), cleanup: () => rm(dir, { recursive: true, force: true }) }
}
