/**
 * Starts the whole local product — core, channels and HTTP API — for both the headless server and
 * the Electron shell. Returns the URL and a close function that stops the API first (no new
 * requests), then the sessions and the data files.
 */
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildApiServer, type ApiServerOptions } from './api/server'
import type { BaileysChannelOptions } from './channel/baileys'
import { lazyChannel } from './channel/lazy-channel'
import { routeLibsignalConsole } from './channel/baileys/libsignal-console'
import type { ServeConfig } from './config'
import { startCore, type Core } from './core'
import { createLogger } from './logger'
import { APP_VERSION } from './version'

export interface RunningApp {
  core: Core
  server: FastifyInstance
  url: string
  close(): Promise<void>
}

export interface StartAppExtra {
  /** The faces' plugins and facts over the started core (the web UI, the UI contract's /rpc). */
  faces?: (core: Core, url: () => string) => Pick<ApiServerOptions, 'publicPlugins' | 'accountPlugins' | 'app'>
  /**
   * Baileys channel options over those from `config` (benchmarks: `composingMs: 0`, so a bot reply's
   * "typing…" pause does not hide the pipeline's own latency). Unset in the products.
   */
  baileys?: BaileysChannelOptions
}

export async function startApp(config: ServeConfig, { baileys, faces }: StartAppExtra = {}): Promise<RunningApp> {
  const logger = createLogger(config.logLevel)
  // libsignal prints session records (private keys included) to the console; they go to the log instead.
  const libsignalLog = logger.child({ lib: 'libsignal' })
  const restoreConsole = routeLibsignalConsole((line) => libsignalLog.debug(line))
  // Baileys loads on the first use of a WhatsApp instance (./channel/lazy-channel.ts), or now for the test seam.
  const loadBaileys = () => import('./channel/baileys')
  if (config.waRootKey) {
    ;(await loadBaileys()).applyTestRootKey(config.waRootKey)
    logger.warn('CHATAPP_WA_ROOT_KEY is set: WhatsApp server certificates are checked against a TEST root key (tests only)')
  }
  if (config.waWebSocketUrl) logger.warn({ url: config.waWebSocketUrl }, 'CHATAPP_WA_WS_URL is set: the Baileys channel connects to a TEST server (tests only)')
  let core: Core
  try {
    core = await startCore({
      dataDir: config.dataDir,
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl, worker: config.worker } : {}),
      ...(config.mediaDir ? { mediaDir: config.mediaDir } : {}),
      defaultChannel: config.channel,
      apiToken: config.apiToken,
      fetchAllow: config.fetchAllow,
      logger,
      limits: { fileBytes: config.tuning.fileBytes, jsonBytes: config.tuning.jsonBytes },
      bot: { surveyIdleMs: config.tuning.surveyIdleMs, defaultMessageWindowMs: config.tuning.defaultMessageWindowMs },
      factories: {
        baileys: lazyChannel('baileys', async () =>
          (await loadBaileys()).createBaileysChannel({
            sendPacing: config.tuning.sendPacing,
            // A test server needs no current WA Web version: nothing is fetched from the internet then.
            ...(config.waWebSocketUrl ? { waWebSocketUrl: config.waWebSocketUrl, fetchVersion: null } : {}),
            ...baileys
          })
        )
      }
    })
  } catch (err) {
    restoreConsole()
    throw err
  }
  let server: FastifyInstance
  let url = ''
  try {
    server = await buildApiServer(core, { host: config.host, version: APP_VERSION, app: { mode: 'web', defaultChannel: config.channel }, ...(config.trustProxy ? { trustProxy: config.trustProxy } : {}), ...faces?.(core, () => url) })
    await server.listen({ host: config.host, port: config.port })
  } catch (err) {
    await core.close()
    restoreConsole()
    throw err
  }
  const { port } = server.server.address() as AddressInfo
  core.setOwnApiPort(port)
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  url = `http://${host}:${port}`
  return {
    core,
    server,
    url,
    async close() {
      await server.close()
      await core.close()
      restoreConsole()
    }
  }
}
