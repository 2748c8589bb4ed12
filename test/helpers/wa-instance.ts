/**
 * One real-channel instance against the local WhatsApp protocol test server (test/support/wa-server),
 * in process: a server with its test root key applied, the app's core and HTTP API (the test harness)
 * with the REAL Baileys channel pointed at it (send pacing 0, a short "typing…" pause), and one
 * `baileys` instance with its credentials. Shared by the test/wa-e2e files.
 */
import { Writable } from 'node:stream'
import pino from 'pino'
import { WA_CERT_DETAILS } from 'baileys'
import { afterAll, afterEach, expect, vi } from 'vitest'
import { applyTestRootKey, createBaileysChannel, type BaileysChannelOptions } from '../../src/main/channel/baileys'
import type { ServerBehaviour } from '../support/wa-server/behaviour'
import type { Instance } from '../../src/shared/schemas/records'
import { quietLibsignal } from '../support/wa-server/quiet-libsignal'
import { LinkRefusedError, startWaTestServer, type FakePhone, type WaTestServer } from '../support/wa-server/server'
import { makeHarness, type Harness } from './harness'
import type { CoreOptions } from '../../src/main/core'
import { decodeQr } from './qr'

export interface WaInstance {
  server: WaTestServer
  h: Harness
  inst: Instance
  creds: { session_id: string; access_token: string }
  /** `session_id=…&access_token=…` for URLs. */
  qs: string
  /** The instance record as stored now. */
  record(): Instance
  /** Closes the app, then the server. */
  close(): Promise<void>
}

export interface WaInstanceOptions {
  /** The first account's number. */
  accountNumber?: string
  /** Channel options over the test defaults (pacing 0, a short "typing…"). */
  channel?: BaileysChannelOptions
  /** Server knobs over the live defaults (test/support/wa-server/behaviour.ts). */
  behaviour?: Partial<ServerBehaviour>
  /** Core options over the harness's (a manual clock for broadcasts). */
  core?: Partial<CoreOptions>
}

/** Starts a server (first account `accountNumber`) and the app with one instance, not yet linked. */
export async function startWaInstance({ accountNumber = '15550001111', channel, behaviour, core }: WaInstanceOptions = {}): Promise<WaInstance> {
  const server = await startWaTestServer({ accountNumber, behaviour })
  applyTestRootKey(server.rootPublicKey)
  const baileys = createBaileysChannel({ waWebSocketUrl: server.url, fetchVersion: null, sendPacing: { minIntervalMs: 0, jitterMs: 0 }, composingMs: 20, ...channel })
  // Errors of the app (a 500's cause, with its request id) go to stderr, so a failure under load says
  // why; the library's own error lines (stream errors the tests provoke on purpose) are left out.
  const appErrorsOnly = new Writable({
    write(chunk: Buffer, _enc, done) {
      const text = chunk.toString()
      if (!text.includes('"lib":"baileys"') && !text.includes('"lib":"libsignal"')) process.stderr.write(text)
      done()
    }
  })
  const logger = pino({ level: process.env.WA_TEST_LOG_LEVEL ?? 'error' }, appErrorsOnly)
  const h = await makeHarness({ factories: { baileys }, fetchAllow: ['127.0.0.1'], logger, ...core }).catch(async (err) => {
    await server.close()
    throw err
  })
  const inst = await h.createInstance('baileys')
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  return {
    server,
    h,
    inst,
    creds,
    qs: new URLSearchParams(creds).toString(),
    record: () => h.core.instances.get(inst._id),
    async close() {
      await h.close().catch(() => {})
      await server.close().catch(() => {})
    }
  }
}

/**
 * Links the instance as an owner does (docs/api-seed.md §4.4): init → the QR image from /chatapp/scan, read as a
 * phone camera would → the fake phone scans → 515 restart → login → CONNECTED.
 */
export async function linkByQr(t: WaInstance): Promise<void> {
  const init = await t.h.call({ method: 'POST', url: '/chatapp/init', payload: t.creds })
  expect(init.statusCode, init.body).toBe(200)
  expect(init.json.data.status).toBe('CONNECTING')
  await vi.waitFor(() => expect(t.record().settings.status).toBe('QR'), { timeout: 5000 })
  const scan = await t.h.call({ method: 'GET', url: `/chatapp/scan?format=base64text&${t.qs}` })
  expect(scan.statusCode).toBe(200)
  expect(scan.json.data).toEqual({ qrcode: expect.stringMatching(/^data:image\/png;base64,/), status: 'QR' })
  const qr = await decodeQr(scan.json.data.qrcode)
  expect(qr).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#TESTREF/)
  expect(qr).toBe(t.h.core.sessions.latestQr(t.inst._id))
  await scanLikeAPhone(t.server.phone, qr!, async () => {
    const again = await t.h.call({ method: 'GET', url: `/chatapp/scan?format=base64text&${t.qs}` })
    return again.statusCode === 200 ? decodeQr(again.json.data.qrcode) : undefined
  })
  await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'), { timeout: 5000 })
}

/**
 * Scans `qr` as a phone camera held in front of the screen does: when the phone says "Couldn't link
 * device" because the server retired the QR's secret (companion_reg_refresh, Baileys #2737), it
 * keeps looking at the screen (`readQr`: the QR the product shows now) and scans the refreshed QR
 * once it differs. Throws when the product never shows a refreshed QR.
 */
export async function scanLikeAPhone(phone: FakePhone, qr: string, readQr: () => Promise<string | undefined>): Promise<void> {
  let current = qr
  for (let attempt = 1; ; attempt++) {
    try {
      await phone.scan(current)
      return
    } catch (err) {
      if (!(err instanceof LinkRefusedError) || attempt >= 3) throw err
      const refused = current
      await vi.waitFor(
        async () => {
          const shown = await readQr()
          expect(shown, `the product still shows the QR the phone refused (${err.message})`).not.toBe(refused)
          current = shown!
        },
        { timeout: 5000 }
      )
    }
  }
}

/**
 * For a test file's top level: drops libsignal's console lines while the file runs; answers the
 * `afterAll` restore, which also puts back the library's root key (each server signs with its own).
 */
export function waTestFile(): () => void {
  const realRootKey = Buffer.from(WA_CERT_DETAILS.PUBLIC_KEY)
  const loud = quietLibsignal()
  return () => {
    WA_CERT_DETAILS.PUBLIC_KEY = realRootKey
    loud()
  }
}

/**
 * The set-up a test/wa-e2e file shares, called once at its top level: {@link waTestFile} for the
 * file, and after each test the clean-ups it registered run, newest first (a failing one does not
 * stop the others). `linked` starts an instance ({@link startWaInstance} options) and links it by QR;
 * it is closed after the test. `cleanup` registers anything else to close (a receiver, a restarted
 * harness).
 */
export function waTestSuite(): { linked(options?: WaInstanceOptions): Promise<WaInstance>; cleanup(fn: () => Promise<void>): void } {
  afterAll(waTestFile())
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => {})
  })
  return {
    async linked(options) {
      const t = await startWaInstance(options)
      cleanups.push(() => t.close())
      await linkByQr(t)
      return t
    },
    cleanup(fn) {
      cleanups.push(fn)
    }
  }
}
