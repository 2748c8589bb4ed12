/**
 * The server under load for bench/throughput-bench.ts, in a process of its own so the load generator
 * never shares its event loop. `node --import tsx bench/throughput-target.ts <mode> [receiverUrl]`:
 *
 * - `bare`: a node:http server that reads the JSON body, parses it and answers a small JSON object
 *   (the ceiling for any Node server on this machine: the baseline of the ratios);
 * - `app`: the product as `npm run serve` starts it (`startApp`, sandbox channel, data dir on the
 *   default temp disk, log level warn), one CONNECTED sandbox instance;
 * - `app-webhooks`: the same with the instance's webhook on (`onAnyMessage`) to `receiverUrl`.
 *
 * Prints one line `THROUGHPUT-TARGET-READY { url, path, body, token }` (the request to repeat) once ready; exits on SIGTERM after
 * closing the app.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp } from '../src/main/app'
import { readServeConfig } from '../src/main/config'

const [mode, receiverUrl] = process.argv.slice(2)
/** Marks the ready line among the app's log lines (pino writes to stdout too). */
const READY = 'THROUGHPUT-TARGET-READY '
const body = JSON.stringify({ chatId: '15550001111', message: 'Your order #1234 is ready for pickup.' })

function ready(url: string, path: string, token = ''): void {
  process.stdout.write(READY + JSON.stringify({ url, path, body, token }) + '\n')
}

if (mode === 'bare') {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { chatId: string }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify({ status: 'success', message: 'Message sent successfully', data: { chatId: parsed.chatId } }))
    })
  })
  server.listen(0, '127.0.0.1', () => ready(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, '/'))
  process.once('SIGTERM', () => server.close(() => process.exit(0)))
} else if (mode === 'app' || mode === 'app-webhooks') {
  const dataDir = await mkdtemp(join(tmpdir(), 'chatapp-throughput-'))
  const config = readServeConfig({
    CHATAPP_DATA_DIR: dataDir,
    CHATAPP_PORT: '0',
    CHATAPP_CHANNEL: 'sandbox',
    CHATAPP_LOG_LEVEL: 'warn',
    CHATAPP_API_TOKEN: 'throughput-bench-token-0123456789'
  })
  const app = await startApp(config)
  // Set up through the API, as a script would.
  const api = async (method: string, path: string, payload?: object): Promise<{ data: Record<string, unknown> }> => {
    const res = await fetch(app.url + path, {
      method,
      headers: { authorization: `Bearer ${config.apiToken}`, 'content-type': 'application/json' },
      body: payload ? JSON.stringify(payload) : undefined
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as { data: Record<string, unknown> }
  }
  const inst = (await api('POST', '/chatapp/createNewChatapp', {})).data as { session_id: string; settings: { access_token: string } }
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  const qs = new URLSearchParams(creds).toString()
  await api('POST', '/chatapp/init', { ...creds, config: { multiDevice: true, setWebhook: false } })
  await api('POST', `/chatapp/sandbox/scan?${qs}`)
  if (mode === 'app-webhooks') {
    if (!receiverUrl) throw new Error('app-webhooks needs the receiver URL')
    await api('PUT', '/chatapp/setWebhook', { ...creds, webhook_url: receiverUrl, events: ['onAnyMessage'], requestConfig: {} })
    await api('PUT', '/chatapp/updateActions', { ...creds, send_default_msg: true, reply_group_msgs: true, reply_unread_msgs: true, reply_msgs: true, multi_device: true, send_webhook: true })
  }
  ready(app.url, `/chatapp/message?${qs}`, config.apiToken)
  process.once('SIGTERM', () => {
    void (async () => {
      await app.close()
      await rm(dataDir, { recursive: true, force: true })
            process.exit(0)
    })()
  })
} else {
  console.error(`unknown mode "${mode}": bare, app or app-webhooks`)
  process.exit(2)
}
