/**
 * Instances (docs/api-seed.md §4.4, docs/design.md §5) and their settings (docs/api-seed.md §4.3): create, list, init, scan in
 * both forms, pairing code, info, logout, delete, and the five settings updates.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import sharp from 'sharp'
import jsQR from 'jsqr'
import { makeHarness, type Harness } from '../helpers/harness'
import { internalsOf } from '../../src/main/core'

let h: Harness
beforeEach(async () => {
  h = await makeHarness()
})
afterEach(async () => {
  await h.close()
})

async function decodeQr(pngBytes: Buffer): Promise<string | undefined> {
  const { data, info } = await sharp(pngBytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return jsQR(new Uint8ClampedArray(data), info.width, info.height)?.data
}

describe('instances', () => {
  it('creates with the seed shape and defaults, DISCONNECTED', async () => {
    const res = await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', payload: {} })
    expect(res.statusCode).toBe(200)
    expect(res.json.message).toBe('Chatapp created successfully!')
    const d = res.json.data
    expect(d.user_id).toBe(h.core.account.id)
    expect(d.session_id.length).toBeGreaterThanOrEqual(22)
    expect(d.settings.access_token.length).toBeGreaterThanOrEqual(22)
    expect(d.settings).toMatchObject({
      status: 'DISCONNECTED',
      channel: 'sandbox',
      bot_lang: 'en',
      actions: { send_default_msg: true, reply_group_msgs: true, reply_unread_msgs: true, reply_msgs: true, multi_device: false, send_webhook: false },
      active_days: { monday: true, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: true, sunday: true },
      active_hours: { from: 'always', to: 'always' }
    })
    expect(d.settings.default_msg).toContain('[name]')
    expect(d.__v).toBe(0)
  })

  it('creates with no body at all, and honours an explicit channel', async () => {
    const res = await h.call({ method: 'POST', url: '/chatapp/createNewChatapp' })
    expect(res.statusCode).toBe(200)
    const b = await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', payload: { channel: 'baileys' } })
    expect(b.json.data.settings.channel).toBe('baileys')
    const bad = await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', payload: { channel: 'telegram' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json.error.details[0].field).toBe('channel')
  })

  it('lists all instances with the bearer token only', async () => {
    const a = await h.createInstance()
    const b = await h.createInstance()
    const res = await h.call({ method: 'GET', url: '/chatapp', payload: { session_id: 'ignored', access_token: 'ignored' } })
    expect(res.json.message).toBe('Chatapp fetched successfully!')
    expect(res.json.data.map((i: { _id: string }) => i._id)).toEqual([a._id, b._id])
  })

  it('init → QR (PNG and base64, decodable, rotating) → sandbox scan → CONNECTED', async () => {
    const inst = await h.createInstance()
    const qs = `session_id=${inst.session_id}&access_token=${inst.settings.access_token}`
    const early = await h.call({ method: 'GET', url: `/chatapp/scan?${qs}` })
    expect(early.statusCode).toBe(409)
    expect(early.json.message).toMatch(/init/)

    const init = await h.call({ method: 'POST', url: '/chatapp/init', payload: { session_id: inst.session_id, access_token: inst.settings.access_token, config: { multiDevice: true } } })
    expect(init.json).toEqual({ status: true, message: 'Chatapp initialised successfully!', data: { status: 'QR' } })
    expect(h.core.instances.get(inst._id).settings.actions.multi_device).toBe(true)
    const again = await h.call({ method: 'POST', url: `/chatapp/init?${qs}` })
    expect(again.json.data.status).toBe('QR')

    const img = await h.call({ method: 'GET', url: `/chatapp/scan?${qs}` })
    expect(img.statusCode).toBe(200)
    expect(img.headers['content-type']).toBe('image/png')
    const first = await decodeQr(img.rawPayload)
    expect(first).toBe(h.core.sessions.latestQr(inst._id))

    const txt = await h.call({ method: 'GET', url: `/chatapp/scan?${qs}&format=base64text` })
    expect(txt.json.message).toBe('QR code fetched successfully')
    expect(txt.json.data.status).toBe('QR')
    expect(txt.json.data.qrcode).toMatch(/^data:image\/png;base64,/)
    const fromText = await decodeQr(Buffer.from(txt.json.data.qrcode.split(',')[1], 'base64'))
    expect(fromText).toBe(first)

    // Rotation: the route always serves the latest QR.
    ;(h.core.sessions.get(inst._id) as unknown as { rotateQr(): void }).rotateQr()
    const rotated = await decodeQr((await h.call({ method: 'GET', url: `/chatapp/scan?${qs}` })).rawPayload)
    expect(rotated).not.toBe(first)
    expect(rotated).toBe(h.core.sessions.latestQr(inst._id))

    const scan = await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${qs}` })
    expect(scan.json.message).toBe('Sandbox device linked successfully!')
    expect(scan.json.data.status).toBe('CONNECTED')
    const info = await h.call({ method: 'GET', url: `/chatapp/instance?${qs}&format=base64` })
    expect(info.json).toEqual({
      status: true,
      message: 'Status checked successfully',
      data: {
        error: false,
        message: 'Instance fetched successfully',
        instance_data: {
          instance_key: inst.session_id,
          phone_connected: true,
          webhookUrl: null,
          user: { id: `${scan.json.data.bot_number}@s.whatsapp.net`, name: 'Sandbox' },
          status: 'CONNECTED',
          status_reason: null,
          limits: null
        }
      }
    })
    const list = await h.call({ method: 'GET', url: '/chatapp' })
    expect(list.json.data[0].settings.bot_number).toBe(scan.json.data.bot_number)
    const connectedScan = await h.call({ method: 'GET', url: `/chatapp/scan?${qs}` })
    expect(connectedScan.statusCode).toBe(409)
    expect(connectedScan.json.error.code).toBe('CONFLICT')
  })

  it('init with setWebhook stores the URL and switches webhooks on; without URL is a 400', async () => {
    const inst = await h.createInstance()
    const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
    const bad = await h.call({ method: 'POST', url: '/chatapp/init', payload: { ...creds, config: { setWebhook: true } } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json.error.details[0].field).toBe('config.webhookUrl')
    const ok = await h.call({ method: 'POST', url: '/chatapp/init', payload: { ...creds, config: { multiDevice: false, setWebhook: true, webhookUrl: 'https://example.com/hook' } } })
    expect(ok.statusCode).toBe(200)
    const s = h.core.instances.get(inst._id).settings
    expect(s.webhook.url).toBe('https://example.com/hook')
    expect(s.actions.send_webhook).toBe(true)
  })

  it('init of a channel this build lacks is a clear 409', async () => {
    const inst = await h.createInstance('baileys')
    const res = await h.call({ method: 'POST', url: '/chatapp/init', payload: { session_id: inst.session_id, access_token: inst.settings.access_token } })
    expect(res.statusCode).toBe(409)
    expect(res.json.message).toBe('The baileys channel is not available in this build.')
    expect(h.core.sessions.get(inst._id)).toBeUndefined()
  })

  it('pairing code needs init; answers a code in state QR', async () => {
    const inst = await h.createInstance()
    const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
    const early = await h.call({ method: 'POST', url: '/chatapp/pairingCode', payload: { ...creds, phone: '+1 555 010 9999' } })
    expect(early.statusCode).toBe(409)
    await h.call({ method: 'POST', url: '/chatapp/init', payload: creds })
    const bad = await h.call({ method: 'POST', url: '/chatapp/pairingCode', payload: { ...creds, phone: 'call me' } })
    expect(bad.statusCode).toBe(400)
    const res = await h.call({ method: 'POST', url: '/chatapp/pairingCode', payload: { ...creds, phone: '+1 555 010 9999' } })
    expect(res.json.message).toBe('Pairing code generated successfully')
    expect(res.json.data.pairingCode).toMatch(/^[A-Z0-9]{8}$/)
    const qs = `session_id=${creds.session_id}&access_token=${creds.access_token}`
    const scan = await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${qs}` })
    expect(scan.json.data.bot_number).toBe('15550109999')
  })

  it('logout unlinks, deletes credentials, LOGGED_OUT; init pairs again', async () => {
    const { inst, qs } = await h.connectedInstance()
    expect(await h.core.sessions.hasCredentials(inst._id)).toBe(true)
    const res = await h.call({ method: 'GET', url: `/chatapp/instance/logout/${inst._id}?${qs}` })
    expect(res.json).toEqual({ status: true, message: 'Logged out successfully', data: { status: 'LOGGED_OUT' } })
    expect(await h.core.sessions.hasCredentials(inst._id)).toBe(false)
    const info = await h.call({ method: 'GET', url: `/chatapp/instance?${qs}` })
    expect(info.json.data.instance_data.phone_connected).toBe(false)
    const init = await h.call({ method: 'POST', url: `/chatapp/init?${qs}` })
    expect(init.json.data.status).toBe('QR')
  })

  it('delete removes the instance and everything it owns', async () => {
    const { inst, creds, qs } = await h.connectedInstance()
    await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 't', keyword: 'k', reply: 'r' } })
    await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 's', keyword: 'k', reply: 'r', sort_id: 1, action: {} } })
    await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'hi' } })
    const other = await h.createInstance()
    const res = await h.call({ method: 'DELETE', url: `/chatapp/${inst._id}` })
    expect(res.json).toEqual({ status: true, message: 'Chatapp deleted successfully!', data: { n: 1, ok: 1, deletedCount: 1 } })
    const { repos } = internalsOf(h.core).storage
    expect(repos.instances.all().map((i) => i._id)).toEqual([other._id])
    expect(await repos.intents.ofInstance(inst._id)).toEqual([])
    expect(await repos.surveySteps.ofInstance(inst._id)).toEqual([])
    expect(await repos.messages.list(inst._id)).toEqual([])
    expect(await repos.conversations.list([inst._id], {}, 100, Date.now())).toEqual([])
    expect(await h.core.sessions.hasCredentials(inst._id)).toBe(false)
    expect(h.core.sessions.get(inst._id)).toBeUndefined()
    const again = await h.call({ method: 'DELETE', url: `/chatapp/${inst._id}` })
    expect(again.statusCode).toBe(404)
    const creds401 = await h.call({ method: 'GET', url: `/intent?${qs}` })
    expect(creds401.statusCode).toBe(401)
  })
})

describe('settings updates', () => {
  let creds: { session_id: string; access_token: string }
  let id: string
  const RESULT = { acknowledged: true, modifiedCount: 1, upsertedId: null, upsertedCount: 0, matchedCount: 1 }
  beforeEach(async () => {
    const inst = await h.createInstance()
    id = inst._id
    creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  })
  const qs = () => `session_id=${creds.session_id}&access_token=${creds.access_token}`

  it('updateGeneral: seed body without credentials (query carries them)', async () => {
    const res = await h.call({ method: 'PUT', url: `/chatapp/updateGeneral?${qs()}`, payload: { bot_name: 'Shop Bot', bot_timezone: 'Asia/Kolkata', bot_lang: 'hi', default_msg: false } })
    expect(res.json).toEqual({ status: true, message: 'Chatapp settings updated successfully!', data: RESULT })
    const s = h.core.instances.get(id).settings
    expect(s).toMatchObject({ bot_name: 'Shop Bot', bot_timezone: 'Asia/Kolkata', bot_lang: 'hi' })
    expect(s.actions.send_default_msg).toBe(false)
    const same = await h.call({ method: 'PUT', url: `/chatapp/updateGeneral?${qs()}`, payload: { bot_name: 'Shop Bot' } })
    expect(same.json.data.modifiedCount).toBe(0)
    const tmpl = await h.call({ method: 'PUT', url: '/chatapp/updateGeneral', payload: { ...creds, default_msg: '{Hey|Hi} [name]' } })
    expect(tmpl.json.data.modifiedCount).toBe(1)
    expect(h.core.instances.get(id).settings.default_msg).toBe('{Hey|Hi} [name]')
  })

  it.each(['+05:30', 'UTC+5:30', 'GMT-3', 'America/New_York', 'UTC'])('accepts the time zone %s', async (tz) => {
    const res = await h.call({ method: 'PUT', url: `/chatapp/updateGeneral?${qs()}`, payload: { bot_timezone: tz } })
    expect(res.statusCode).toBe(200)
  })

  it.each(['Mars/Olympus', '+25:00', 'five', ''])('refuses the time zone %j', async (tz) => {
    const res = await h.call({ method: 'PUT', url: `/chatapp/updateGeneral?${qs()}`, payload: { bot_timezone: tz } })
    expect(res.statusCode).toBe(400)
    expect(res.json.error.details[0].field).toBe('bot_timezone')
  })

  it('updateActions sets the flags and refuses non-booleans', async () => {
    const res = await h.call({ method: 'PUT', url: `/chatapp/updateActions?${qs()}`, payload: { send_default_msg: false, reply_group_msgs: false, reply_unread_msgs: false, reply_msgs: true, multi_device: true, send_webhook: true } })
    expect(res.json.data).toEqual(RESULT)
    expect(h.core.instances.get(id).settings.actions).toEqual({ send_default_msg: false, reply_group_msgs: false, reply_unread_msgs: false, reply_msgs: true, multi_device: true, send_webhook: true })
    const bad = await h.call({ method: 'PUT', url: `/chatapp/updateActions?${qs()}`, payload: { reply_msgs: 'yes' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json.error.details).toEqual([{ field: 'reply_msgs', problem: 'must be boolean' }])
  })

  it('updateActiveDays', async () => {
    const res = await h.call({ method: 'PUT', url: `/chatapp/updateActiveDays?${qs()}`, payload: { saturday: false, sunday: false } })
    expect(res.json.data).toEqual(RESULT)
    expect(h.core.instances.get(id).settings.active_days).toMatchObject({ monday: true, saturday: false, sunday: false })
  })

  it('updateActiveHours: times, overnight, always; mixed and malformed refused', async () => {
    for (const body of [{ from: '9:00', to: '18:30' }, { from: '22:00', to: '06:00' }, { from: 'always', to: 'always' }]) {
      const res = await h.call({ method: 'PUT', url: `/chatapp/updateActiveHours?${qs()}`, payload: body })
      expect(res.statusCode).toBe(200)
      expect(h.core.instances.get(id).settings.active_hours).toEqual(body)
    }
    const mixed = await h.call({ method: 'PUT', url: `/chatapp/updateActiveHours?${qs()}`, payload: { from: 'always', to: '18:00' } })
    expect(mixed.statusCode).toBe(400)
    expect(mixed.json.error.details[0].field).toBe('to')
    const bad = await h.call({ method: 'PUT', url: `/chatapp/updateActiveHours?${qs()}`, payload: { from: '25:00', to: '9:7' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json.error.details.map((d: { field: string }) => d.field)).toEqual(['from', 'to'])
  })

  it('setWebhook answers the URL, events and secret', async () => {
    const res = await h.call({ method: 'PUT', url: '/chatapp/setWebhook', payload: { ...creds, webhook_url: 'https://example.com/hook', events: ['onMessage', 'onAnyMessage'], requestConfig: { headers: { 'X-Key': 'abc' }, timeout_ms: 5000 } } })
    expect(res.json.message).toBe('Chatapp settings updated successfully!')
    expect(res.json.data).toMatchObject({ webhook_url: 'https://example.com/hook', events: ['onMessage', 'onAnyMessage'] })
    expect(res.json.data.secret).toMatch(/^whsec_/)
    const s = h.core.instances.get(id).settings
    expect(s.webhook.requestConfig).toEqual({ headers: { 'X-Key': 'abc' }, timeout_ms: 5000 })
    const info = await h.call({ method: 'GET', url: `/chatapp/instance?${qs()}` })
    expect(info.json.data.instance_data.webhookUrl).toBe('https://example.com/hook')
    for (const bad of [
      { webhook_url: 'ftp://x', events: [] },
      { webhook_url: 'https://x.example', events: ['onEverything'] },
      { webhook_url: 'https://x.example', events: ['onMessage'], requestConfig: { retries: 3 } }
    ]) {
      const r = await h.call({ method: 'PUT', url: '/chatapp/setWebhook', payload: { ...creds, ...bad } })
      expect(r.statusCode).toBe(400)
    }
  })
})
