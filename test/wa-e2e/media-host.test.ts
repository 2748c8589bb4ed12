/**
 * The fake WhatsApp media host and the peers' media crypto (test/support/wa-server/media-host.ts,
 * media-crypto.ts) against the library's own code: TLS trust comes from NODE_EXTRA_CA_CERTS (set by
 * vitest.config.ts, inherited by workers and child processes), what a peer encrypts the library's
 * downloadContentFromMessage decrypts, and what the library's encryptedStream makes a peer decrypts.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { request } from 'node:https'
import { promisify } from 'node:util'
import { downloadContentFromMessage, encryptedStream } from 'baileys'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decryptMedia, encryptMedia } from '../support/wa-server/media-crypto'
import { startMediaHost, type MediaHost } from '../support/wa-server/media-host'
import { jpeg } from '../helpers/fixtures'

let host: MediaHost
beforeAll(async () => {
  host = await startMediaHost()
})
afterAll(() => host.close())

/** POST with node's https, as the library uploads; answers status and body. */
function post(path: string, body: Buffer): Promise<{ status: number; body: string }> {
  const [hostname, port] = host.host.split(':')
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'POST', headers: { 'content-length': body.length } }, (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const collect = async (stream: AsyncIterable<Buffer>): Promise<Buffer> => {
  const parts: Buffer[] = []
  for await (const c of stream) parts.push(c)
  return Buffer.concat(parts)
}

describe('fake media host', () => {
  it('this worker trusts the test CA for both https.request and fetch (NODE_EXTRA_CA_CERTS from vitest.config.ts)', async () => {
    const blob = Buffer.from('encrypted bytes')
    const token = createHash('sha256').update(blob).digest('base64url')
    const up = await post(`/mms/image/${token}?auth=${encodeURIComponent(host.auth)}&token=${token}`, blob)
    expect(up.status).toBe(200)
    const { url, direct_path } = JSON.parse(up.body) as { url: string; direct_path: string }
    expect(url).toBe(`https://${host.host}${direct_path}&mms3=true`)
    expect(direct_path).toMatch(/^\/v\/t62\.7118-24\/[0-9a-f]+_image\.enc\?ccb=11-4&oh=/)
    const got = await fetch(`https://${host.host}${direct_path}`)
    expect(got.status).toBe(200)
    expect(Buffer.from(await got.arrayBuffer())).toEqual(blob)
    expect(host.uploads()).toEqual([{ type: 'image', url, directPath: direct_path, size: blob.length }])
  })

  it('a child process trusts it through the inherited variable, and refuses it without', async () => {
    const script = `fetch('https://${host.host}/nothing').then((r) => console.log(r.status), (e) => console.log(e.cause?.code ?? e.message))`
    const run = async (env: NodeJS.ProcessEnv) => (await promisify(execFile)(process.execPath, ['-e', script], { env })).stdout.trim()
    expect(await run(process.env)).toBe('404')
    const { NODE_EXTRA_CA_CERTS: _ca, ...without } = process.env
    expect(await run(without)).toMatch(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/)
  })

  it('refuses an upload with a wrong auth (401) or a body that is not the hash in the path (400)', async () => {
    const blob = Buffer.from('x')
    const token = createHash('sha256').update(blob).digest('base64url')
    expect((await post(`/mms/image/${token}?auth=wrong&token=${token}`, blob)).status).toBe(401)
    expect((await post(`/mms/image/${token}?auth=${encodeURIComponent(host.auth)}&token=${token}`, Buffer.from('y'))).status).toBe(400)
  })

  it("what a peer encrypts, the library's downloadContentFromMessage fetches and decrypts", async () => {
    const plain = await jpeg()
    const enc = await encryptMedia(plain, 'image')
    const { url, directPath } = host.put('image', enc.blob)
    const stream = await downloadContentFromMessage({ url, directPath, mediaKey: enc.mediaKey }, 'image')
    expect(await collect(stream)).toEqual(plain)
  })

  it("what the library's encryptedStream makes, a peer decrypts; a changed byte or the wrong key type is refused", async () => {
    const plain = Buffer.from('%PDF-1.4 a document of some bytes, longer than one block\n')
    const enc = await encryptedStream(plain, 'document')
    try {
      const blob = await readFile(enc.encFilePath)
      const fields = { mediaKey: enc.mediaKey, fileSha256: enc.fileSha256, fileEncSha256: enc.fileEncSha256, fileLength: enc.fileLength }
      expect(await decryptMedia(blob, fields, 'document')).toEqual(plain)
      await expect(decryptMedia(blob, fields, 'image')).rejects.toThrow(/mac does not match/)
      const changed = Buffer.from(blob)
      changed[3] = changed[3]! ^ 1
      await expect(decryptMedia(changed, fields, 'document')).rejects.toThrow(/fileEncSha256/)
      await expect(decryptMedia(changed, { ...fields, fileEncSha256: createHash('sha256').update(changed).digest() }, 'document')).rejects.toThrow(
        /mac does not match/
      )
      await expect(decryptMedia(blob, { ...fields, fileLength: plain.length + 1 }, 'document')).rejects.toThrow(/fileLength/)
    } finally {
      await rm(enc.encFilePath, { force: true })
    }
  })
})
