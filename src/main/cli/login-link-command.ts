/**
 * `npm run login-link [-- --data-dir DIR] [--url URL]`: prints a new one-time login link for the web
 * UI, for the owner who no longer has the one `npm run serve` printed (it is good for 10 minutes, and
 * the API token is printed only at the start that generated it). Works while the app runs on the data
 * dir and while it is stopped: the code goes into the data dir's login-code file
 * (../store/login-code-file.ts), which the app reads when the link is opened. Takes no lock and
 * touches nothing else.
 *
 * The link's address is `--url` (behind a proxy); else, while the app runs, the address it recorded in
 * the data dir (../store/app-address-file.ts: its real port, whatever this shell's variables say); else
 * the one `npm run serve` would take (CHATAPP_HOST, CHATAPP_PORT). A server bound to every interface is
 * reached on 127.0.0.1.
 * Exit codes (./common.ts): 0 printed; 1 could not write the code; 2 wrong usage or no data dir.
 */
import { createHash } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { newSecret } from '../ids'
import { LOGIN_CODE_TTL_MS } from '../services/account-service'
import { readAppAddress } from '../store/app-address-file'
import { dataDirInUse } from '../store/data-dir-lock'
import { LoginCodeFile } from '../store/login-code-file'
import { consoleIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, resolveDataDir, type CliIo } from './common'

const USAGE = 'Usage: npm run login-link [-- --data-dir DIR] [--url URL]'

const HELP = `${USAGE}
  --data-dir DIR  the data dir (default: CHATAPP_DATA_DIR, else the app's folder)
  --url URL       the address the web UI is opened at (default: the running app's own address,
                  else http://CHATAPP_HOST:CHATAPP_PORT, 127.0.0.1:3210 when unset)
Prints a one-time login link, good for 10 minutes, whether the app runs or not.`

/** The web UI's address as `npm run serve` listens by default: `http://host:port`. Pure. */
export function defaultAppUrl(env: NodeJS.ProcessEnv): string {
  const host = env.CHATAPP_HOST?.trim() || '127.0.0.1'
  const port = env.CHATAPP_PORT?.trim() || '3210'
  return reachableUrl(`http://${host.includes(':') ? `[${host}]` : host}:${port}`)
}

/** `url` as this machine opens it: a server bound to every interface (0.0.0.0, ::) is reached on loopback. Pure. */
export function reachableUrl(url: string): string {
  const parsed = URL.parse(url)
  if (!parsed) return url
  if (parsed.hostname === '0.0.0.0' || parsed.hostname === '[::]') parsed.hostname = '127.0.0.1'
  return parsed.origin
}

/** Runs the command; resolves with the exit code. `now` is the clock of the code's expiry (epoch ms). */
export async function runLoginLinkCommand(argv: string[], env: NodeJS.ProcessEnv = process.env, io: CliIo = consoleIo, now: () => number = Date.now): Promise<number> {
  let values: { 'data-dir'?: string; url?: string; help?: boolean }
  try {
    ;({ values } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, url: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }))
  } catch (err) {
    io.err(`${(err as Error).message}\n${USAGE}`)
    return EXIT_USAGE
  }
  if (values.help) {
    io.out(HELP)
    return EXIT_OK
  }
  let base: string | null = null
  if (values.url !== undefined) {
    const parsed = URL.parse(values.url.trim())
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      io.err(`--url must be an http:// or https:// address, got "${values.url}".\n${USAGE}`)
      return EXIT_USAGE
    }
    base = parsed.origin + parsed.pathname.replace(/\/+$/, '')
  }
  const dataDir = resolveDataDir(values['data-dir'], env)
  const dir = await stat(dataDir).catch(() => null)
  if (!dir?.isDirectory()) {
    io.err(`There is no Chatapp data dir at ${dataDir}. Set CHATAPP_DATA_DIR (or --data-dir) to the folder the app runs with.`)
    return EXIT_USAGE
  }
  const running = await dataDirInUse(dataDir)
  if (base === null) {
    const recorded = running ? await readAppAddress(dataDir) : null
    base = recorded ? reachableUrl(recorded) : defaultAppUrl(env)
  }
  const code = newSecret(18)
  const at = now()
  try {
    await LoginCodeFile.in(dataDir).add(createHash('sha256').update(code).digest('hex'), at + LOGIN_CODE_TTL_MS, at)
  } catch (err) {
    io.err(`Could not write the login code into ${dataDir}: ${(err as Error).message}`)
    return EXIT_FAILED
  }
  io.out(`Log in (one-time link, 10 min): ${base}/#login=${code}`)
  if (!running) {
    io.out(`Chatapp is not running on ${dataDir}: start it (npm run serve, with the same CHATAPP_DATA_DIR) and open the link within 10 minutes.`)
  }
  io.out('Once logged in, the API tab shows the API token.')
  return EXIT_OK
}
