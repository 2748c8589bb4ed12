/**
 * Headless entry (`npm run serve`, DESIGN.md §2): the core and the HTTP API with no Electron.
 * Prints `Chatapp API listening on http://HOST:PORT` when ready; SIGTERM/SIGINT close cleanly (no
 * write lost, sessions closed). Exits 1 with a clear message on bad configuration, a data dir owned
 * by another process, or an unreadable data file.
 */
import { startApp } from './app'
import { ConfigError, readServeConfig } from './config'
import { DataFileError } from './store/atomic-json-file'
import { DataDirLockedError } from './store/data-dir-lock'

async function main(): Promise<void> {
  const config = readServeConfig()
  const app = await startApp(config)
  // The token first: scripts that wait for the ready line have it by then.
  if (!config.apiToken) console.log(`API token: ${app.core.account.token()}`)
  console.log(`Chatapp API listening on ${app.url}`)
  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    app.core.logger.info({ signal }, 'shutting down')
    app
      .close()
      .then(() => process.exit(0))
      .catch((err) => {
        console.error('Shutdown failed:', err)
        process.exit(1)
      })
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof DataFileError) {
    console.error(`Chatapp could not start: ${err.message}`)
  } else {
    console.error('Chatapp could not start:', err)
  }
  process.exit(1)
})
