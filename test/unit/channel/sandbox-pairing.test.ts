/**
 * The sandbox channel's pairing in the database (`auth_creds`, src/main/channel/sandbox-channel.ts) on
 * a real SQLite file: a scan stores it, a new session of the instance reconnects from it without a QR,
 * logout and the phone removing the device delete it, and a full disk at the scan keeps the QR up.
 */
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SandboxSession } from '../../../src/main/channel/sandbox-channel'
import type { ChannelContext, ConnectionState } from '../../../src/main/channel/types'
import { StorageFullError } from '../../../src/main/store/db/errors'
import { openTestChannelStore, type TestChannelStore } from '../../helpers/channel-store'

let t: TestChannelStore
beforeEach(async () => {
  t = await openTestChannelStore()
})
afterEach(async () => {
  t.database.limitGrowth(null)
  await t.close()
})

function session(instanceId = 'sb1') {
  const states: ConnectionState[] = []
  const qrs: string[] = []
  const ctx: ChannelContext = {
    instanceId,
    store: t.store,
    logger: pino({ level: 'silent' }),
    hooks: { onState: (u) => states.push(u.state), onQr: (q) => qrs.push(q), onMessage: async () => {}, onMessageStatus: () => {}, onChatIdentity: () => {}, onLimits: () => {}, onHistory: async () => ({ added: 0 }), onMessageChange: async () => {} }
  }
  return { s: new SandboxSession(ctx), states, qrs }
}

describe('sandbox pairing', () => {
  it('a scan stores the pairing; a new session reconnects from it without a QR; logout deletes it', async () => {
    const a = session()
    await a.s.start()
    expect(a.s.currentState).toBe('QR')
    const account = await a.s.simulateScan()
    expect(JSON.parse((await t.store.auth.creds('sb1'))!)).toEqual({ account, pairedAt: expect.any(String) })
    await a.s.stop()

    const b = session()
    await b.s.start()
    expect(b.s.currentState).toBe('CONNECTED')
    expect(b.states).toEqual(['CONNECTING', 'CONNECTED'])
    expect(b.qrs).toEqual([])
    // Another instance is not paired by it.
    const other = session('sb2')
    await other.s.start()
    expect(other.s.currentState).toBe('QR')
    await other.s.stop()

    await b.s.logout()
    expect(await t.store.auth.has('sb1')).toBe(false)
    const c = session()
    await c.s.start()
    expect(c.s.currentState).toBe('QR')
    await c.s.simulateScan()
    await c.s.simulateDeviceRemoved()
    expect(c.s.currentState).toBe('LOGGED_OUT')
    expect(await t.store.auth.has('sb1')).toBe(false)
  })

  it('a full disk at the scan: StorageFullError, nothing stored, the QR stays up and a later scan links', async () => {
    const a = session()
    await a.s.start()
    // The file may not grow; rows smaller than a pairing, with ids just before this instance's, fill
    // the room left until one is refused: then the page the pairing goes to is full too.
    t.database.limitGrowth(0)
    let filled = false
    for (let i = 0; i < 5000 && !filled; i++) {
      filled = await t.store.auth.saveCreds(`sb0-${String(i).padStart(5, '0')}`, 'v'.repeat(100), new Date().toISOString()).then(
        () => false,
        (err: unknown) => err instanceof StorageFullError
      )
    }
    expect(filled).toBe(true)
    await expect(a.s.simulateScan()).rejects.toBeInstanceOf(StorageFullError)
    expect(a.s.currentState).toBe('QR')
    expect(await t.store.auth.creds('sb1')).toBeUndefined()
    t.database.limitGrowth(null)
    await a.s.simulateScan()
    expect(a.s.currentState).toBe('CONNECTED')
    await a.s.stop()
  })

  it('a stored text that is not a sandbox pairing pairs again', async () => {
    await t.store.auth.saveCreds('sb1', '{"noiseKey":{}}', new Date().toISOString())
    const a = session()
    await a.s.start()
    expect(a.s.currentState).toBe('QR')
    await a.s.stop()
  })
})
