/**
 * Headless entry (`npm run serve`, docs/design.md §2): the core and the HTTP API with no Electron, plus the
 * web UI at `/` (when built: `npm run build`) driven over the HTTP transport of the UI contract.
 * Prints `Chatapp API listening on http://HOST:PORT` when ready; SIGTERM/SIGINT close cleanly (no
 * write lost, sessions closed). Exits 1 with a clear message on bad configuration, a data dir owned
 * by another process, or an unreadable data file.
 */
import { fileURLToPath } from 'node:url'
import { startApp } from './app'
import { ConfigError, readServeConfig } from './config'
import { CorruptDatabaseError, DataFileError, NewerDatabaseError, StorageFullError } from './store/storage'
import { DataDirLockedError } from './store/data-dir-lock'
import { createHandlers } from './ui-contract/handlers'
import { rpcPlugin } from './ui-contract/http-transport'
import { hasBuiltUi, webUiPlugin } from './ui-contract/web-ui'

/** Where `npm run build` puts the renderer; `CHATAPP_UI_DIR` overrides it. */
const UI_DIR = process.env.CHATAPP_UI_DIR?.trim() || fileURLToPath(new URL('../../out/renderer', import.meta.url))

async function main(): Promise<void> {
  const config = readServeConfig()
  const ui = hasBuiltUi(UI_DIR)
  const stopper: { stop?: (why: string, code: number) => void } = {}
  const app = await startApp(config, {
    // The core logged why; what is stored stays as it is, so the app stops rather than serve errors.
    onDatabaseFailed: () => stopper.stop?.('the database cannot be used', 1),
    faces: (core, url) => ({
      // The UI's files are public (they hold no data); everything they fetch goes through /rpc.
      publicPlugins: ui ? [webUiPlugin(UI_DIR)] : [],
      accountPlugins: [rpcPlugin(core, createHandlers(core, { baseUrl: url, mode: 'web', defaultChannel: config.channel, dataDir: config.dataDir }))]
    })
  })
  console.log(ui ? `Web UI: ${app.url}/ (open the login link below; npm run login-link prints a new one at any time)` : `Web UI not built (run npm run build to serve it at ${app.url}/)`)
  // The token before the ready line (scripts that wait for that line have it by then), and only when
  // it was just generated: later starts do not repeat a secret into logs. It stays in the data dir.
  if (app.core.account.generatedNow) console.log(`API token: ${app.core.account.token()} (shown this once; the API tab shows it later)`)
  // A one-time code, not the token: the link in the browser's history is worthless once used.
  if (ui) console.log(`Log in (one-time link, 10 min): ${app.url}/#login=${app.core.account.issueLoginCode()}`)
  console.log(`Chatapp API listening on ${app.url}`)
  let closing = false
  const shutdown = (signal: string, code = 0) => {
    if (closing) return
    closing = true
    app.core.logger.info({ signal }, 'shutting down')
    app
      .close()
      .then(() => process.exit(code))
      .catch((err) => {
        console.error('Shutdown failed:', err)
        process.exit(1)
      })
  }
  stopper.stop = shutdown
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}

main().catch((err) => {
  // Errors the owner can act on are said in one line; anything else with its stack, for a bug report.
  if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof DataFileError || err instanceof CorruptDatabaseError || err instanceof NewerDatabaseError || err instanceof StorageFullError) {
    console.error(`Chatapp could not start: ${err.message}`)
  } else {
    console.error('Chatapp could not start:', err)
  }
  process.exit(1)
})
