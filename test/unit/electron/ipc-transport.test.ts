/**
 * IPC wiring of the UI contract with the mocked electron module (vitest aliases `electron`): every
 * contract method is registered and reaches its handler (and, with the real handlers, the core); a
 * foreign sender is refused; the sender check accepts only the app's own top frame.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ipcMain } from 'electron'
import type { IpcMainInvokeEvent } from 'electron'
import { appSenderCheck, registerIpcTransport } from '../../../src/main/electron/ipc-transport'
import { createHandlers } from '../../../src/main/ui-contract/handlers'
import { startCore } from '../../../src/main/core'
import { CONTRACT_METHODS, ipcChannel, type ContractHandlers, type ContractInput, type ContractMethod } from '../../../src/shared/contract'

const mockIpc = ipcMain as unknown as typeof ipcMain & { _handlers: Map<string, (...args: unknown[]) => Promise<any>> }

/** A valid input per method; typed so that a new contract method fails to compile until listed here. */
const SAMPLE: { [M in ContractMethod]: ContractInput<M> } = {
  'app.info': {},
  'instances.list': {},
  'instances.create': { channel: 'sandbox' },
  'instances.delete': { instanceId: 'i1' },
  'instances.init': { instanceId: 'i1' },
  'instances.logout': { instanceId: 'i1' },
  'instances.health': { instanceId: 'i1' },
  'pairing.qr': { instanceId: 'i1' },
  'pairing.code': { instanceId: 'i1', phone: '+1 555 000 1111' },
  'pairing.sandboxScan': { instanceId: 'i1' },
  'settings.updateGeneral': { instanceId: 'i1', bot_name: 'Bot' },
  'settings.updateActions': { instanceId: 'i1', reply_msgs: true },
  'settings.updateActiveDays': { instanceId: 'i1', sunday: false },
  'settings.updateActiveHours': { instanceId: 'i1', from: '9:00', to: '17:00' },
  'settings.setWebhook': { instanceId: 'i1', webhook_url: 'https://example.com/hook', events: ['onMessage'] },
  'webhookDeliveries.list': { instanceId: 'i1' },
  'webhookDeliveries.retry': { instanceId: 'i1', deliveryId: 'd1' },
  'intents.list': { instanceId: 'i1' },
  'intents.create': { instanceId: 'i1', title: 'T', keyword: 'hi', reply: 'Hello' },
  'intents.update': { instanceId: 'i1', id: 'x', reply: 'Hey' },
  'intents.delete': { instanceId: 'i1', id: 'x' },
  'surveys.list': { instanceId: 'i1' },
  'surveys.create': { instanceId: 'i1', title: 'S', keyword: 'start', reply: 'Q1?', sort_id: 1 },
  'surveys.update': { instanceId: 'i1', id: 'x', reply: 'Q?' },
  'surveys.delete': { instanceId: 'i1', id: 'x' },
  'surveys.reorder': { instanceId: 'i1', stepIds: ['a', 'b'] },
  'surveys.responses': { instanceId: 'i1', id: 'x' },
  'surveys.responsesCsv': { instanceId: 'i1', id: 'x' },
  'attachments.list': { instanceId: 'i1' },
  'attachments.upload': { instanceId: 'i1', filename: 'a.txt', dataBase64: 'aGk=' },
  'attachments.delete': { instanceId: 'i1', id: 'x' },
  'messages.list': { instanceId: 'i1', chatId: '1555', limit: 10 },
  'messages.fetchHistory': { instanceId: 'i1', chatId: '1555', count: 10 },
  'messages.preview': { instanceId: 'i1', id: 'm1' },
  'messageLog.list': { instanceId: 'i1', type: 'all', page: 2, limit: 10 },
  'messageLog.get': { instanceId: 'i1', id: 'm1' },
  'sandbox.removeDevice': { instanceId: 'i1' },
  'contacts.create': { instanceId: 'i1', name: 'Ann', number: '+1 555 000 1111' },
  'contacts.list': { instanceId: 'i1', type: 'all' },
  'inbox.get': { instanceId: 'i1', chatId: '15550001111' },
  'contacts.get': { instanceId: 'i1', id: 'c1' },
  'contacts.update': { instanceId: 'i1', id: 'c1', opted_out: true },
  'contacts.delete': { instanceId: 'i1', id: 'c1' },
  'labels.list': {},
  'labels.create': { name: 'vip', color: 'grape' },
  'labels.update': { id: 'l1', color: 'red' },
  'labels.delete': { id: 'l1' },
  'inbox.labels': { instanceId: 'i1', chatId: '15550001111', labels: ['vip'] },
  'contacts.import': { instanceId: 'i1', csv: 'name,number\nAnn,+1 555 000 1111' },
  'contacts.export': { instanceId: 'i1' },
  'contactGroups.create': { instanceId: 'i1', title: 'Regulars' },
  'broadcasts.create': { instanceId: 'i1', send_type: 'individual', to: '15550001111', message: { text: 'Hi [name]' } },
  'broadcasts.list': { instanceId: 'i1' },
  'broadcasts.get': { instanceId: 'i1', id: 'b1' },
  'broadcasts.delete': { instanceId: 'i1', id: 'b1' },
  'broadcasts.pause': { instanceId: 'i1', id: 'b1' },
  'broadcasts.resume': { instanceId: 'i1', id: 'b1' },
  'broadcasts.cancel': { instanceId: 'i1', id: 'b1' },
  'schedules.create': { instanceId: 'i1', target: { type: 'chat', id: '15550001111' }, message: { text: 'Hi' }, repeat: 'none', start_at: '2030-01-01T10:00' },
  'schedules.list': { instanceId: 'i1' },
  'schedules.update': { instanceId: 'i1', id: 's1', active: false },
  'schedules.delete': { instanceId: 'i1', id: 's1' },
  'outreach.status': { instanceId: 'i1' },
  'settings.outreach': { instanceId: 'i1', daily_limit: 50 },
  'contactGroups.list': { instanceId: 'i1' },
  'contactGroups.get': { instanceId: 'i1', id: 'g1' },
  'contactGroups.update': { instanceId: 'i1', id: 'g1', title: 'VIP' },
  'contactGroups.delete': { instanceId: 'i1', id: 'g1' },
  'inbox.list': { status: 'open', q: 'ann' },
  'inbox.read': { instanceId: 'i1', chatId: '1555' },
  'inbox.resolve': { instanceId: 'i1', chatId: '1555' },
  'inbox.reopen': { instanceId: 'i1', chatId: '1555' },
  'quickReplies.list': {},
  'quickReplies.create': { shortcut: 'hours', text: 'We open at 9.' },
  'quickReplies.update': { id: 'x', text: 'We open at 10.' },
  'quickReplies.delete': { id: 'x' },
  'bot.activity': { instanceId: 'i1' },
  'assistant.get': { instanceId: 'i1' },
  'assistant.update': { instanceId: 'i1', model: 'llama3.1:8b' },
  'assistant.ask': { instanceId: 'i1', text: 'Open on Sunday?' },
  'assistant.usage': { instanceId: 'i1' },
  'knowledge.create': { instanceId: 'i1', title: 'Hours', content: 'Open 9-18.' },
  'knowledge.list': { instanceId: 'i1' },
  'knowledge.get': { instanceId: 'i1', id: 'k1' },
  'knowledge.update': { instanceId: 'i1', id: 'k1', content: 'Open 9-19.' },
  'knowledge.delete': { instanceId: 'i1', id: 'k1' },
  'knowledge.import': { instanceId: 'i1', filename: 'faq.csv', dataBase64: 'cSxh' },
  'handoff.list': { instanceId: 'i1' },
  'handoff.pause': { instanceId: 'i1', chatId: '1555', minutes: 30 },
  'handoff.resume': { instanceId: 'i1', chatId: '1555' },
  'handoff.settings': { instanceId: 'i1', pause_minutes: 15 },
  'settings.away': { instanceId: 'i1', enabled: true },
  'settings.optOut': { instanceId: 'i1', optout_keyword: 'STOP,BASTA' },
  'settings.openingHours': { instanceId: 'i1', holidays: ['2026-12-25'] },
  'instances.stop': { instanceId: 'i1' },
  'instances.stats': { instanceId: 'i1' },
  'surveys.markHandled': { instanceId: 'i1', run_id: 'r1', handled: true },
  'messages.sendFileUrl': { instanceId: 'i1', chatId: '1555', url: 'https://x.example/a.png', type: 'image' },
  'messages.sendMediaButtons': { instanceId: 'i1', chatId: '1555', btndata: { text: 'x', buttons: [{ type: 'replyButton', title: 'a' }], image: 'https://x.example/a.png' } },
  'messages.sendText': { instanceId: 'i1', chatId: '1555', message: 'hi' },
  'messages.react': { instanceId: 'i1', chatId: '1555', messageId: 'ABC', emoji: '👍' },
  'messages.sendMedia': { instanceId: 'i1', chatId: '1555', kind: 'image', attachmentId: 'a1' },
  'messages.sendButtons': { instanceId: 'i1', chatId: '1555', btndata: { text: 'Pick', buttons: [{ type: 'replyButton', title: 'A' }] } },
  'messages.sendList': { instanceId: 'i1', chatId: '1555', msgdata: { text: 'Menu', sections: [{ rows: [{ title: 'One' }] }] } },
  'messages.sendContact': { instanceId: 'i1', chatId: '1555', vcard: { fullName: 'Ann', phoneNumber: '+15550001111' } },
  'sandbox.inbound': { instanceId: 'i1', chatId: '1555', message: 'hello' },
  'sandbox.network': { instanceId: 'i1', notOnWhatsApp: ['15550009999'] },
  'sandbox.read': { instanceId: 'i1', chatId: '15550001111' },
  'apiToken.get': {},
  'apiToken.regenerate': {},
  'appSettings.get': {},
  'appSettings.setSmtp': { smtp: { host: 'smtp.example.com', port: 587, secure: false, from: 'bot@example.com' } },
  'settings.retention': { instanceId: 'i1', days: 365 },
  'customers.export': { instanceId: 'i1', number: '+1 555 000 1111' },
  'customers.exportCsv': { instanceId: 'i1', number: '+1 555 000 1111' },
  'customers.erase': { instanceId: 'i1', number: '+1 555 000 1111' },
  'backups.status': {},
  'cluster.get': {},
  'backups.settings': { daily: true, keep: 7 },
  'backups.now': {},
  'backups.restoreStored': { name: 'chatapp-desk-2026-01-01T00-00-00.000Z.tar.gz' },
  'backups.read': { name: 'chatapp-desk-2026-01-01T00-00-00.000Z.tar.gz', offset: 0, length: 1024 },
  'backups.upload': { dataBase64: 'AAAA' },
  'backups.restoreUpload': { uploadId: '0123456789abcdef01234567' },
  'app.about': {},
  'updates.status': {},
  'updates.check': {},
  'updates.download': {},
  'updates.setAutoDownload': { enabled: false },
  'updates.restart': { force: true },
  'auth.logout': {},
  'auth.me': {},
  'staff.create': { name: 'Bea', login: 'bea', role: 'agent' },
  'staff.list': {},
  'staff.update': { id: 's1', name: 'Bea B' },
  'staff.delete': { id: 's1' },
  'staff.invite': { id: 's1' },
  'staff.signOut': { id: 's1' },
  'apiKeys.create': { name: 'script', scopes: ['messages:send'] },
  'apiKeys.list': {},
  'apiKeys.delete': { id: 'k1' },
  'audit.list': { limit: 10 },
  'inbox.assign': { instanceId: 'i1', chatId: '15550001111', staff_id: null },
  'inbox.timeline': { instanceId: 'i1', chatId: '15550001111' }
}

const APP_URL = 'file:///opt/chatapp/resources/app/out/renderer/index.html'

function event(opts: { id?: number; url?: string; subframe?: boolean } = {}): IpcMainInvokeEvent {
  return {
    sender: { id: opts.id ?? 1 },
    senderFrame: { url: opts.url ?? APP_URL, parent: opts.subframe ? {} : null }
  } as unknown as IpcMainInvokeEvent
}

const trusted = appSenderCheck((id) => id === 1, ['file:///opt/chatapp/resources/app/out/renderer/'])
let unregister: (() => void) | undefined

afterEach(() => {
  unregister?.()
  unregister = undefined
})

/** Handlers that record which method was called with what. */
function spyHandlers() {
  const calls: Array<[string, unknown]> = []
  const handlers = Object.fromEntries(
    CONTRACT_METHODS.map((m) => [m, vi.fn(async (input: unknown) => (calls.push([m, input]), `result of ${m}`))])
  ) as unknown as ContractHandlers
  return { handlers, calls }
}

describe('registerIpcTransport', () => {
  it('registers one channel per contract method, and removes them again', () => {
    const { handlers } = spyHandlers()
    unregister = registerIpcTransport(mockIpc, handlers, trusted, () => {})
    expect([...mockIpc._handlers.keys()].sort()).toEqual(CONTRACT_METHODS.map(ipcChannel).sort())
    unregister()
    unregister = undefined
    expect(mockIpc._handlers.size).toBe(0)
  })

  it('routes every method to its own handler with the validated input', async () => {
    const { handlers, calls } = spyHandlers()
    unregister = registerIpcTransport(mockIpc, handlers, trusted, () => {})
    for (const m of CONTRACT_METHODS) {
      const res = await mockIpc._handlers.get(ipcChannel(m))!(event(), SAMPLE[m])
      expect(res, m).toEqual({ ok: true, data: `result of ${m}` })
    }
    expect(calls.map(([m]) => m)).toEqual(CONTRACT_METHODS)
    expect(calls.find(([m]) => m === 'settings.updateActiveHours')![1]).toEqual(SAMPLE['settings.updateActiveHours'])
  })

  it('refuses a foreign sender (other window, subframe, navigated page) without calling the handler', async () => {
    const { handlers, calls } = spyHandlers()
    unregister = registerIpcTransport(mockIpc, handlers, trusted, () => {})
    const call = mockIpc._handlers.get(ipcChannel('apiToken.get'))!
    for (const e of [event({ id: 2 }), event({ subframe: true }), event({ url: 'https://evil.example/' })]) {
      expect(await call(e, {})).toEqual({ ok: false, error: expect.objectContaining({ code: 'UNAUTHORIZED' }) })
    }
    expect(calls).toEqual([])
  })

  it('answers validation errors as data (IPC drops error properties)', async () => {
    const { handlers, calls } = spyHandlers()
    unregister = registerIpcTransport(mockIpc, handlers, trusted, () => {})
    const res = await mockIpc._handlers.get(ipcChannel('settings.updateActiveHours'))!(event(), { instanceId: 'i1', from: 'noon', to: 'always' })
    expect(res.ok).toBe(false)
    expect(res.error.code).toBe('VALIDATION_ERROR')
    expect(res.error.details).toEqual([expect.objectContaining({ field: 'from' })])
    expect(calls).toEqual([])
  })

  it('reaches the core with the real handlers: create, init, scan and chat over IPC', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-ipc-'))
    const core = await startCore({ dataDir: dir, defaultChannel: 'sandbox' })
    try {
      unregister = registerIpcTransport(mockIpc, createHandlers(core, { baseUrl: () => 'http://127.0.0.1:1', mode: 'desktop', defaultChannel: 'sandbox' }), trusted, () => {})
      const invoke = (m: ContractMethod, input: unknown) => mockIpc._handlers.get(ipcChannel(m))!(event(), input)
      const created = await invoke('instances.create', { channel: 'sandbox' })
      expect(core.instances.list().map((i) => i._id)).toEqual([created.data._id])
      await invoke('instances.init', { instanceId: created.data._id })
      expect((await invoke('pairing.sandboxScan', { instanceId: created.data._id })).ok).toBe(true)
      expect(core.instances.get(created.data._id).settings.status).toBe('CONNECTED')
      await invoke('settings.updateGeneral', { instanceId: created.data._id, bot_name: 'Desk Bot' })
      expect(core.instances.get(created.data._id).settings.bot_name).toBe('Desk Bot')
      const missing = await invoke('intents.list', { instanceId: 'nope' })
      expect(missing).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'Instance not found' } })
    } finally {
      await core.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('appSenderCheck', () => {
  it('accepts the app window top frame on an allowed origin only', () => {
    expect(trusted(event())).toBe(true)
    expect(trusted(event({ id: 3 }))).toBe(false)
    expect(trusted(event({ subframe: true }))).toBe(false)
    expect(trusted(event({ url: 'file:///tmp/other.html' }))).toBe(false)
    expect(trusted({ sender: { id: 1 }, senderFrame: null } as unknown as IpcMainInvokeEvent)).toBe(false)
  })
})
