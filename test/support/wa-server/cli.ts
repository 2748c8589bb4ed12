/**
 * `npm run wa-test-server`: the protocol test server on its own, with its HTTP control API
 * (./control.ts), for benchmarks and for trying the app against it by hand:
 *
 *   npm run wa-test-server            # prints the url, the root key and the env lines for the app
 *   CHATAPP_CHANNEL=baileys CHATAPP_WA_WS_URL=… CHATAPP_WA_ROOT_KEY=… npm run serve
 *
 * The first stdout line is JSON (`{url, httpUrl, rootKey, caFile}`) for programs that spawn it. Media
 * go through the server's HTTPS media host: an app that sends or downloads media must trust the
 * test CA (`NODE_EXTRA_CA_CERTS=<caFile>`, read by Node at start; vitest.config.ts sets it for tests).
 * `WA_TEST_ACCOUNT` sets the first account's number. `WA_TEST_EXIT_ON_STDIN_END=1` stops the server
 * when its stdin closes: a parent that spawns it with a stdin pipe cannot leave it behind, even when
 * the parent is killed with SIGKILL (the benchmarks).
 */
import { fileURLToPath } from 'node:url'
import { quietLibsignal } from './quiet-libsignal'
import { startWaTestServer } from './server'

quietLibsignal()
const server = await startWaTestServer({ control: true, accountNumber: process.env.WA_TEST_ACCOUNT || undefined })
const caFile = fileURLToPath(new URL('./tls/ca.crt', import.meta.url))
console.log(JSON.stringify({ url: server.url, httpUrl: server.httpUrl, rootKey: server.rootPublicKeyB64, caFile }))
console.error(`WhatsApp protocol test server on ${server.url} (control API: ${server.httpUrl}/control)`)
console.error(`  media host: https://${server.media.host} (test CA ${caFile})`)
console.error(`  NODE_EXTRA_CA_CERTS=${caFile} CHATAPP_CHANNEL=baileys CHATAPP_WA_WS_URL=${server.url} CHATAPP_WA_ROOT_KEY=${server.rootPublicKeyB64} npm run serve`)
let stopping = false
const stop = (): void => {
  if (stopping) return
  stopping = true
  void server.close().finally(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
if (process.env.WA_TEST_EXIT_ON_STDIN_END === '1') {
  process.stdin.on('end', stop).on('close', stop).resume()
}
