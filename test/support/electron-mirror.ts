/**
 * A loopback Electron download mirror for offline tests of the fresh-machine start and of packaging.
 * `install-electron` (@electron/get) and electron-builder fetch
 * `<ELECTRON_MIRROR>v<version>/electron-v<version>-<platform>-<arch>.zip`, and with
 * `electron_use_remote_checksums=1` its `SHASUMS256.txt` beside it. The zip served here holds a stub
 * `electron` executable that writes its working directory and arguments to `$CHATAPP_STUB_LOG` and
 * exits 0. Its `version` file says `<version>-stub`, so a real `install-electron` never mistakes a
 * leftover stub for the real binary.
 */
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import yazl from 'yazl'

const STUB = '#!/bin/sh\nprintf "%s\\n" "$PWD" "$@" > "${CHATAPP_STUB_LOG:-/dev/null}"\n'

function stubZip(version: string): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from(STUB), 'electron', { mode: 0o100755 })
  zip.addBuffer(Buffer.from(`${version}-stub`), 'version')
  zip.end()
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c))
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    zip.outputStream.on('error', reject)
  })
}

export interface ElectronMirror {
  /** `http://127.0.0.1:<port>/` (ELECTRON_MIRROR). */
  url: string
  /** Paths requested so far. */
  requests: string[]
  /** The env that points Electron downloads here, with a fresh download cache (never the user's). */
  env: Record<string, string>
  close(): Promise<void>
}

/** Serves the stub Electron `version` for linux-x64 on a loopback port. */
export async function startElectronMirror(version: string): Promise<ElectronMirror> {
  const zip = await stubZip(version)
  const name = `electron-v${version}-linux-x64.zip`
  const files = new Map<string, Buffer>([
    [`/v${version}/${name}`, zip],
    [`/v${version}/SHASUMS256.txt`, Buffer.from(`${createHash('sha256').update(zip).digest('hex')} *${name}\n`)]
  ])
  const requests: string[] = []
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!
    requests.push(path)
    const body = files.get(path)
    if (!body) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-length': body.length }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  const cache = await mkdtemp(join(tmpdir(), 'chatapp-electron-cache-'))
  return {
    url,
    requests,
    env: { ELECTRON_MIRROR: url, electron_use_remote_checksums: '1', electron_config_cache: cache, ELECTRON_CACHE: cache },
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}
