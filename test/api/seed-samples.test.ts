/**
 * The original service's samples (docs/api-seed.md §4: every request row, with the credentials where
 * §5 puts them, the bearer token and the `x-refresh` header) replayed against the real headless server,
 * twice: as JSON (fetch, `Content-Type: application/json`, multipart through FormData) and as the
 * samples' curl commands (`curl -d '<json>'` with no content type — curl then says
 * x-www-form-urlencoded — and `curl -F`, an unchosen value sent as an empty field: `-F filename=`).
 * Placeholders (`{survey_id}`, `{intent_id}`, `{instance_id}`) take the ids the earlier answers gave.
 * Each sample passes when it is answered 200 with `status: true` (or with its file: the QR's PNG).
 */
import { execFile } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mp4, oggOpus, pdf, png } from '../helpers/fixtures'
import { SERVE_TOKEN, startServe, type ServeProcess } from '../helpers/serve-process'

type Json = Record<string, unknown>
/** What the earlier answers gave: the instance's credentials and the ids the paths name. */
interface Ids {
  session_id: string
  access_token: string
  instance_id: string
  survey_id: string
  intent_id: string
}
interface Sample {
  name: string
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** With `{placeholders}`. */
  path: string
  /** Query string values (credentials: `true` adds them). */
  query?: { creds?: boolean } & Record<string, string | boolean>
  json?: (ids: Ids) => Json
  form?: { fields: Record<string, string>; file?: 'png' | 'mp4' | 'ogg' | 'pdf' }
  /** Keeps an id from the answer. */
  keep?: (data: any, ids: Ids) => void
}

const CHAT = '919876543210'
let fileServer: Server
let imageUrl: string
const files: Record<string, { path: string; type: string; name: string }> = {}
let work: string

const creds = (ids: Ids) => ({ session_id: ids.session_id, access_token: ids.access_token })

/** The samples in the order a person walks them: an instance first, its removal last. */
function samples(): Sample[] {
  return [
    { name: 'Instances: Create', method: 'POST', path: '/chatapp/createNewChatapp', json: () => ({}), keep: (d, ids) => Object.assign(ids, { session_id: d.session_id, access_token: d.settings.access_token, instance_id: d._id }) },
    { name: 'Instances: Init', method: 'POST', path: '/chatapp/init', json: (ids) => ({ ...creds(ids), config: { multiDevice: true, setWebhook: false, webhookUrl: 'https://example.com/webhook' } }) },
    { name: 'Instances: Scan QR', method: 'GET', path: '/chatapp/scan', query: { creds: true } },
    { name: 'Instances: Scan QR as text', method: 'GET', path: '/chatapp/scan', query: { creds: true, format: 'base64text' } },
    { name: 'Instances: Instance info', method: 'GET', path: '/chatapp/instance', query: { creds: true, format: 'base64' }, json: (ids) => creds(ids) },
    { name: 'Instances: Get all instances', method: 'GET', path: '/chatapp', json: (ids) => creds(ids) },
    { name: 'Settings: Update general info', method: 'PUT', path: '/chatapp/updateGeneral', json: () => ({ bot_name: 'Pizzeria Marco', bot_timezone: 'Asia/Kolkata', bot_lang: 'en', default_msg: true }) },
    {
      name: 'Settings: Update bot actions',
      method: 'PUT',
      path: '/chatapp/updateActions',
      json: () => ({ send_default_msg: true, reply_group_msgs: false, reply_unread_msgs: true, reply_msgs: true, multi_device: true, send_webhook: false })
    },
    { name: 'Settings: Update active days', method: 'PUT', path: '/chatapp/updateActiveDays', json: () => ({ monday: true, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: false, sunday: false }) },
    { name: 'Settings: Update active hours', method: 'PUT', path: '/chatapp/updateActiveHours', json: () => ({ from: '9:00', to: '18:00' }) },
    { name: 'Settings: Set webhook', method: 'PUT', path: '/chatapp/setWebhook', json: (ids) => ({ ...creds(ids), webhook_url: 'https://example.com/webhook', events: ['onMessage', 'onAnyMessage'], requestConfig: {} }) },
    { name: 'Surveys: Create', method: 'POST', path: '/survey', json: (ids) => ({ ...creds(ids), title: 'Order', keyword: 'order', reply: 'What would you like?', sort_id: 1, action: {} }), keep: (d, ids) => (ids.survey_id = d._id) },
    {
      name: 'Surveys: Create with action',
      method: 'POST',
      path: '/survey',
      json: (ids) => ({ ...creds(ids), title: 'Order', keyword: 'pizza,pasta', reply: 'For when?', sort_id: 2, action: { send_location: { lat: '28.6139', lng: '77.2090', loc: 'Our shop' } } })
    },
    { name: 'Surveys: Get all', method: 'GET', path: '/survey', json: (ids) => creds(ids) },
    { name: 'Surveys: Get one (GET /attachment)', method: 'GET', path: '/attachment', json: (ids) => creds(ids) },
    { name: 'Surveys: Update', method: 'PUT', path: '/survey/{survey_id}', json: (ids) => ({ ...creds(ids), reply: 'What would you like today?', sort_id: '1' }) },
    { name: 'Surveys: Delete (DELETE /intent/{id})', method: 'DELETE', path: '/intent/{survey_id}', json: (ids) => creds(ids) },
    {
      name: 'Intents: Create with action',
      method: 'POST',
      path: '/intent',
      json: (ids) => ({ ...creds(ids), title: 'Hours', keyword: 'open,hours', reply: 'We are open 9-18.', action: { send_contact: { name: 'Marco', number: '15550001111' }, send_notification: { email: 'marco@example.com', chatapp_number: '15559990000' } } }),
      keep: (d, ids) => (ids.intent_id = d._id)
    },
    { name: 'Intents: Create, reply only', method: 'POST', path: '/intent', json: (ids) => ({ ...creds(ids), title: 'Greeting', keyword: 'hi,hello', reply: '{Hi|Hello} [name]!' }) },
    { name: 'Intents: Get my intents', method: 'GET', path: '/intent', json: (ids) => creds(ids) },
    { name: 'Intents: Get single', method: 'GET', path: '/intent/{intent_id}', json: (ids) => creds(ids) },
    { name: 'Intents: Update', method: 'PUT', path: '/intent/{intent_id}', json: (ids) => ({ ...creds(ids), title: 'Hours', keyword: 'open,hours,timing', reply: 'We are open 9-18, Monday to Friday.' }) },
    { name: 'Intents: Delete', method: 'DELETE', path: '/intent/{intent_id}', json: (ids) => creds(ids) },
    {
      name: 'Send: Text',
      method: 'POST',
      path: '/chatapp/message',
      query: { creds: true },
      json: (ids) => ({ ...creds(ids), chatId: CHAT, message: 'Hello from the shop', attachments: [], location: { name: 'Our shop', lat: '28.6139', lng: '77.2090' } })
    },
    { name: 'Send: Image', method: 'POST', path: '/chatapp/message/image', query: { creds: true }, form: { fields: { chatId: CHAT, caption: 'Our menu' }, file: 'png' } },
    { name: 'Send: Video', method: 'POST', path: '/chatapp/message/video', query: { creds: true }, form: { fields: { chatId: CHAT, caption: 'The oven' }, file: 'mp4' } },
    { name: 'Send: Audio', method: 'POST', path: '/chatapp/message/audio', query: { creds: true }, form: { fields: { chatId: CHAT }, file: 'ogg' } },
    // The original sample leaves `filename` blank: the file's own name is used.
    { name: 'Send: Document', method: 'POST', path: '/chatapp/message/doc', query: { creds: true }, form: { fields: { chatId: CHAT, filename: '' }, file: 'pdf' } },
    { name: 'Send: File by URL', method: 'POST', path: '/chatapp/message/fileurl', query: { creds: true }, form: { fields: { chatId: CHAT, url: '{image_url}', type: 'image', mimetype: 'image/png', caption: 'From the web' } } },
    {
      name: 'Send: Buttons',
      method: 'POST',
      path: '/chatapp/message/button',
      query: { creds: true },
      json: () => ({
        chatId: CHAT,
        btndata: {
          text: 'What would you like?',
          buttons: [
            { type: 'replyButton', title: 'Pizza' },
            { type: 'urlButton', title: 'Menu', payload: 'https://example.com/menu' },
            { type: 'callButton', title: 'Call us', payload: '+15550001111' }
          ],
          footerText: 'Pizzeria Marco'
        }
      })
    },
    { name: 'Send: Contact', method: 'POST', path: '/chatapp/message/contact', query: { creds: true }, json: () => ({ chatId: CHAT, vcard: { fullName: 'Marco Rossi', displayName: 'Marco', organization: 'Pizzeria Marco', phoneNumber: '+15550001111' } }) },
    {
      name: 'Send: List',
      method: 'POST',
      path: '/chatapp/message/list',
      query: { creds: true },
      json: () => ({
        chatId: CHAT,
        msgdata: {
          buttonText: 'See the menu',
          text: 'Our pizzas',
          title: 'Menu',
          description: 'Pick one',
          sections: [{ title: 'Pizzas', rows: [{ title: 'Margherita', description: 'Tomato, mozzarella', rowId: 'margherita' }] }],
          listType: 1
        }
      })
    },
    {
      name: 'Send: Button with media',
      method: 'POST',
      path: '/chatapp/message/MediaButton',
      query: { creds: true },
      json: () => ({ chatId: CHAT, btndata: { text: 'Today only', buttons: [{ type: 'replyButton', title: 'Order' }], footerText: 'Pizzeria Marco', image: imageUrl, mediaType: 'image', mimeType: 'image/png' } })
    },
    { name: 'Send: Text, deprecated', method: 'POST', path: '/chatapp/sendText', query: { creds: true }, json: (ids) => ({ ...creds(ids), to: CHAT, message: 'Hello again' }) },
    { name: 'Instances: Logout instance', method: 'GET', path: '/chatapp/instance/logout/{instance_id}', query: { creds: true } },
    { name: 'Instances: Delete instance', method: 'DELETE', path: '/chatapp/{instance_id}' }
  ]
}

/** The sample's URL with placeholders and query filled. */
function urlOf(base: string, s: Sample, ids: Ids): string {
  const path = s.path.replace(/\{(\w+)\}/g, (_, k: keyof Ids) => encodeURIComponent(ids[k]))
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(s.query ?? {})) {
    if (k === 'creds') {
      if (v) q.set('session_id', ids.session_id), q.set('access_token', ids.access_token)
    } else q.set(k, String(v))
  }
  return `${base}${path}${q.size ? `?${q}` : ''}`
}

const formValue = (v: string) => (v === '{image_url}' ? imageUrl : v)

/** As JSON: fetch with the content type set, forms through FormData. */
async function viaFetch(base: string, s: Sample, ids: Ids): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${SERVE_TOKEN}`, 'x-refresh': 'refresh-token' }
  let body: string | FormData | undefined
  if (s.json) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(s.json(ids))
  } else if (s.form) {
    const form = new FormData()
    for (const [k, v] of Object.entries(s.form.fields)) form.set(k, formValue(v))
    if (s.form.file) {
      const f = files[s.form.file]!
      form.set('file', new Blob([await (await import('node:fs/promises')).readFile(f.path)], { type: f.type }), f.name)
    }
    body = form
  }
  // fetch sends no body with GET: the seed's GET bodies go as the samples' curl does (below).
  if (s.method === 'GET' && body !== undefined) return viaCurl(base, s, ids, true)
  const res = await fetch(urlOf(base, s, ids), { method: s.method, headers, body })
  const text = await res.text()
  try {
    return { status: res.status, body: JSON.parse(text) }
  } catch {
    return { status: res.status, body: text }
  }
}

/** As the samples' curl command: `-d '<json>'` (no content type unless `json`), `-F` for forms. */
function viaCurl(base: string, s: Sample, ids: Ids, json = false): Promise<{ status: number; body: any }> {
  const args = ['-sS', '-X', s.method, urlOf(base, s, ids), '-H', `Authorization: Bearer ${SERVE_TOKEN}`, '-H', 'x-refresh: refresh-token', '-w', '\n%{http_code}']
  if (s.json) {
    if (json) args.push('-H', 'Content-Type: application/json')
    args.push('-d', JSON.stringify(s.json(ids)))
  }
  if (s.form) {
    for (const [k, v] of Object.entries(s.form.fields)) args.push('-F', `${k}=${formValue(v)}`)
    if (s.form.file) {
      const f = files[s.form.file]!
      args.push('-F', `file=@${f.path};type=${f.type}`)
    }
  }
  return new Promise((resolve, reject) => {
    execFile('curl', args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) return reject(err)
      const cut = stdout.lastIndexOf('\n')
      let body: unknown = null
      try {
        body = JSON.parse(stdout.slice(0, cut))
      } catch {
        body = stdout.slice(0, cut)
      }
      resolve({ status: Number(stdout.slice(cut + 1)), body })
    })
  })
}

/** Replays every sample on a fresh server; answers the failures (name, status, message). */
async function replay(send: (base: string, s: Sample, ids: Ids) => Promise<{ status: number; body: any }>): Promise<{ total: number; failed: string[] }> {
  const dir = await mkdtemp(join(work, 'desk-'))
  const srv: ServeProcess = await startServe({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: SERVE_TOKEN, CHATAPP_FETCH_ALLOW: '127.0.0.2' })
  const ids: Ids = { session_id: '', access_token: '', instance_id: '', survey_id: '', intent_id: '' }
  const failed: string[] = []
  const list = samples()
  try {
    for (const s of list) {
      const res = await send(srv.url, s, ids)
      // A success is the envelope with status true, or a file (the QR's PNG).
      const envelope = typeof res.body === 'object' && res.body !== null
      if (res.status !== 200 || (envelope && res.body.status !== true)) failed.push(`${s.name}: ${res.status} ${JSON.stringify(envelope ? res.body.message : res.body).slice(0, 200)}`)
      else s.keep?.(res.body.data, ids)
      // Not a sample: the phone scans the QR (sandbox), so that the sends have a connected instance.
      if (s.name === 'Instances: Scan QR as text') await fetch(`${srv.url}/chatapp/sandbox/scan?session_id=${ids.session_id}&access_token=${ids.access_token}`, { method: 'POST', headers: { authorization: `Bearer ${SERVE_TOKEN}` } })
    }
  } finally {
    srv.child.kill('SIGTERM')
    await srv.exited
  }
  return { total: list.length, failed }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'chatapp-samples-'))
  const photo = await png(40, 30)
  fileServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(photo))
  await new Promise<void>((r) => fileServer.listen(0, '0.0.0.0', r))
  imageUrl = `http://127.0.0.2:${(fileServer.address() as AddressInfo).port}/menu.png`
  for (const [key, name, type, data] of [
    ['png', 'menu.png', 'image/png', photo],
    ['mp4', 'oven.mp4', 'video/mp4', mp4()],
    ['ogg', 'hello.ogg', 'audio/ogg', oggOpus()],
    ['pdf', 'menu.pdf', 'application/pdf', pdf()]
  ] as const) {
    const path = join(work, name)
    await writeFile(path, data)
    files[key] = { path, type, name }
  }
})
afterAll(async () => {
  await new Promise<void>((r) => fileServer.close(() => r()))
  await rm(work, { recursive: true, force: true })
})

describe('the original service’s samples', () => {
  it('pass as JSON', { timeout: 90_000 }, async () => {
    const { total, failed } = await replay(viaFetch)
    expect(total).toBe(36)
    expect(failed).toEqual([])
  })

  it('pass as curl commands', { timeout: 90_000 }, async () => {
    const { failed } = await replay((base, s, ids) => viaCurl(base, s, ids))
    expect(failed).toEqual([])
  })
})
