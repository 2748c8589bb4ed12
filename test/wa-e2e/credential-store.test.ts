/**
 * The REAL Baileys channel (makeWASocket over a real websocket, against the local protocol test server
 * test/support/wa-server) keeping its credentials, Signal keys and kept messages in a real SQLite file,
 * with no core around it: pairing stores the linked device's creds and keys; a restart (a new session
 * on the same database) logs in from them without a QR and goes on with the Signal sessions it saved
 * (the contact's next message is a plain Signal message, decrypted); a retry receipt for a send from
 * before the restart is answered from the kept messages; logout unlinks the device and removes every
 * row of the instance.
 */
import { pino } from 'pino'
import { afterAll, afterEach, expect, it, vi } from 'vitest'
import { applyTestRootKey, createBaileysChannel, type BaileysSession } from '../../src/main/channel/baileys'
import type { ChannelContext, ConnectionState, InboundMessage } from '../../src/main/channel/types'
import { openTestChannelStore, type TestChannelStore } from '../helpers/channel-store'
import { scanLikeAPhone, waTestFile } from '../helpers/wa-instance'
import { startWaTestServer, type WaTestServer } from '../support/wa-server/server'

afterAll(waTestFile())

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

const INSTANCE = 'inst-e2e'

/** One session of the instance on `db`, as the session manager makes it, with what its hooks saw. */
function session(server: WaTestServer, db: TestChannelStore) {
  const seen = { states: [] as ConnectionState[], qrs: [] as string[], inbound: [] as InboundMessage[] }
  const ctx: ChannelContext = {
    instanceId: INSTANCE,
    store: db.store,
    logger: pino({ level: 'silent' }),
    hooks: {
      onState: (u) => seen.states.push(u.state),
      onQr: (qr) => seen.qrs.push(qr),
      onMessage: async (m) => {
        seen.inbound.push(m)
      },
      onMessageStatus: () => {},
      onChatIdentity: () => {},
      onLimits: () => {},
      onHistory: async () => ({ added: 0 }), onMessageChange: async () => {}
    }
  }
  const channel = createBaileysChannel({ waWebSocketUrl: server.url, fetchVersion: null, sendPacing: { minIntervalMs: 0, jitterMs: 0 }, composingMs: 0 })
  const s = channel(ctx) as BaileysSession
  cleanup.push(() => s.stop())
  return { s, seen }
}

it('pairing, a restart from the stored credentials without a QR keeping the Signal sessions, a retry after it, and logout removing every row', async () => {
  const server = await startWaTestServer({ accountNumber: '15550001111' })
  cleanup.push(() => server.close())
  applyTestRootKey(server.rootPublicKey)
  const db = await openTestChannelStore()
  cleanup.push(() => db.close())

  // Pairing: the QR the session shows, scanned as a phone does (a refreshed QR after companion_reg_refresh).
  const first = session(server, db)
  await first.s.start()
  await vi.waitFor(() => expect(first.seen.qrs.length).toBeGreaterThan(0), { timeout: 5000 })
  expect(await db.store.auth.has(INSTANCE)).toBe(false)
  await scanLikeAPhone(server.phone, first.seen.qrs.at(-1)!, async () => first.seen.qrs.at(-1))
  await vi.waitFor(() => expect(first.s.currentState).toBe('CONNECTED'), { timeout: 5000 })
  const creds = JSON.parse((await db.store.auth.creds(INSTANCE))!) as { me?: { id: string }; account?: unknown }
  expect(creds.me?.id).toMatch(/^15550001111:\d+@s\.whatsapp\.net$/)
  expect(creds.account).toBeTruthy()
  // The pre-keys the client uploaded at login.
  expect(await db.store.auth.countKeys(INSTANCE, 'pre-key')).toBeGreaterThan(0)

  // A conversation: our send (a pre-key message to Ana), her answer.
  const ana = server.contact('15551234567', 'Ana')
  const sent = await first.s.send('15551234567@s.whatsapp.net', { kind: 'text', text: 'before the restart' })
  await vi.waitFor(() => expect(ana.received()).toEqual(['before the restart']), { timeout: 5000 })
  await ana.sendText('thanks')
  await vi.waitFor(() => expect(first.seen.inbound.map((m) => m.text)).toEqual(['thanks']), { timeout: 5000 })
  expect(await db.store.auth.countKeys(INSTANCE, 'session')).toBeGreaterThan(0)
  await vi.waitFor(async () => expect(await db.store.messages.count(INSTANCE)).toBe(1))
  await first.s.stop()

  // The restart: a new session on the same database logs in without a QR.
  const second = session(server, db)
  await second.s.start()
  await vi.waitFor(() => expect(second.s.currentState).toBe('CONNECTED'), { timeout: 5000 })
  expect(second.seen.qrs).toEqual([])
  expect(second.seen.states).not.toContain('QR')
  expect(server.connections).toBe(3) // pairing, login, the login after the restart
  // Ana writes over the session she has; the restarted client decrypts it with the session it stored.
  await ana.sendText('still there?')
  await vi.waitFor(() => expect(second.seen.inbound.map((m) => m.text)).toEqual(['still there?']), { timeout: 5000 })
  expect(ana.sentTypes()).toEqual(['msg', 'msg'])
  // Ana could not decrypt our message after all and asks again: answered from the kept messages.
  const received = ana.received().length
  await ana.requestRetry(sent.key.id)
  await vi.waitFor(() => expect(ana.received().length).toBeGreaterThan(received), { timeout: 5000 })
  expect(ana.received().at(-1)).toBe('before the restart')
  await second.s.send('15551234567@s.whatsapp.net', { kind: 'text', text: 'after the restart' })
  await vi.waitFor(() => expect(ana.received()).toContain('after the restart'), { timeout: 5000 })

  // Logout: unlinked on the server, nothing of the instance left in the database.
  await second.s.logout()
  expect(second.s.currentState).toBe('LOGGED_OUT')
  expect(server.phone.linked).toBe(false)
  expect(await db.store.auth.has(INSTANCE)).toBe(false)
  expect(await db.store.auth.countKeys(INSTANCE)).toBe(0)
  expect(await db.store.messages.count(INSTANCE)).toBe(0)
}, 60_000)
