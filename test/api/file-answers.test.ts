/**
 * Every file the API answers (attachments, inbound media, QR images, CSV exports, backups) is sent
 * as a file: `X-Content-Type-Options: nosniff` (a browser never sniffs an upload into HTML that runs
 * on this origin) and always a `Content-Disposition: attachment` with a file name. The routes come
 * from the operation table's file responders, so a new one must be added here.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { TObject } from 'typebox'
import { makeHarness, type Harness } from '../helpers/harness'
import { multipart, png } from '../helpers/fixtures'
import { OPERATIONS, type OperationName } from '../../src/shared/operations/table'
import type { OperationDef } from '../../src/shared/operations/define'

let h: Harness
const urls: Partial<Record<OperationName, string>> = {}

beforeAll(async () => {
  h = await makeHarness()
  const { qs } = await h.connectedInstance()
  const pairing = await h.createInstance()
  const pairingQs = `session_id=${pairing.session_id}&access_token=${pairing.settings.access_token}`
  await h.call({ method: 'POST', url: `/chatapp/init?${pairingQs}` })
  const form = multipart({}, { filename: '<b>menu</b>.png', contentType: 'image/png', data: await png() })
  const attachment = (await h.call({ method: 'POST', url: `/attachment?${qs}`, ...form })).json.data
  const media = (await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550001111', message: 'my receipt', attachmentId: attachment._id } })).json.data.message
  const survey = (await h.call({ method: 'POST', url: `/survey?${qs}`, payload: { title: 's', keyword: 'k', reply: 'r', sort_id: 1 } })).json.data
  Object.assign(urls, {
    'instances.scan': `/chatapp/scan?${pairingQs}`,
    'surveys.responses': `/survey/${survey._id}/responses?${qs}&format=csv`,
    'attachments.file': `/attachment/${attachment._id}/file?${qs}`,
    'messages.media': `/chatapp/messages/${media.id}/media?${qs}`,
    'contacts.export': `/contact/export?${qs}`,
    'customers.export': `/chatapp/customer/export?${qs}&number=15550001111&format=csv`,
    'backups.download': '/backup'
  })
})
afterAll(async () => {
  await h?.close()
})

const FILE_RESPONDERS = new Set(['qrImage', 'csvWhenAsked', 'attachmentFile', 'mediaFile', 'download'])
const fileOps = (Object.entries(OPERATIONS) as Array<[OperationName, OperationDef<TObject, unknown, unknown>]>).filter(([, d]) => FILE_RESPONDERS.has(d.http?.respond ?? ''))

it('covers every file answer of the table', () => {
  expect(fileOps.map(([n]) => n).sort()).toEqual(Object.keys(urls).sort())
})

it.each(fileOps.map(([n]) => n))('%s answers nosniff and an attachment with a file name', async (name) => {
  const res = await h.call({ method: 'GET', url: urls[name]! })
  expect(res.statusCode, res.body.slice(0, 200)).toBe(200)
  expect(res.headers['x-content-type-options']).toBe('nosniff')
  expect(String(res.headers['content-disposition'])).toMatch(/^attachment; filename\*=UTF-8''[^;]+$/)
})
