/**
 * Multipart bodies that are not whole (truncated in a file or a field, no boundary, not multipart at
 * all inside) answer 400 saying so, on every multipart route, and leave no temp file behind.
 */
import { readdir } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { internalsOf } from '../../src/main/core'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
let qs: string
beforeAll(async () => {
  h = await makeHarness()
  ;({ qs } = await h.connectedInstance())
})
afterAll(async () => {
  await h.close()
})

const B = 'XyZ'
const FILE_HEAD = `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
const CASES: Array<[string, string, string]> = [
  ['a file part cut off', `multipart/form-data; boundary=${B}`, `${FILE_HEAD}abc`],
  ['a part header cut off', `multipart/form-data; boundary=${B}`, `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n`],
  ['a field cut off', `multipart/form-data; boundary=${B}`, `--${B}\r\nContent-Disposition: form-data; name="chatId"\r\n\r\n1555`],
  ['no boundary parameter', 'multipart/form-data', `${FILE_HEAD}abc\r\n--${B}--\r\n`],
  ['no part at all', `multipart/form-data; boundary=${B}`, 'hello world']
]
const ROUTES = ['/attachment', '/chatapp/message/image', '/chatapp/message/doc', '/chatapp/message/fileurl']

describe('malformed multipart bodies', () => {
  for (const [name, contentType, body] of CASES) {
    it.each(ROUTES)(`${name}: %s answers 400`, async (route) => {
      const res = await h.call({ method: 'POST', url: `${route}?${qs}`, headers: { 'content-type': contentType }, payload: body })
      expect(res.statusCode).toBe(400)
      expect(res.json.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: '(body)', problem: 'is not a complete multipart/form-data body' }] })
      expect(res.json.message).toMatch(/^Malformed multipart body: /)
      expect(await readdir(internalsOf(h.core).storage.paths.tmp)).toEqual([])
    })
  }
})
