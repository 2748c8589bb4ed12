/**
 * Decryption under the other identity (WhiskeySockets/Baileys PR #2763, issues #2331, #2378;
 * docs/baileys.md "Decryption with the other identity"): a contact's Signal session with the linked
 * device may be stored under its phone number (built from a message of last year's number-addressed
 * service) while its next message is addressed by LID (`from=<lid>@lid` with `sender_pn`), or the
 * device may have learnt the number's LID (a linked-profiles notification, lib/Socket/chats.js, stores
 * the mapping without moving the session) and look for the session under the LID. rc14
 * (lib/Utils/decode-wa-message.js decryptMessageNode) decrypts under one address only and logs
 * the message as undecryptable; the backport retries under the other one the stanza names.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import type { LoggedMessage } from '../../src/shared/schemas/records'

afterAll(waTestFile())

const WAIT = { timeout: 5000 }
const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function linked(): Promise<WaInstance> {
  const t = await startWaInstance()
  cleanup.push(() => t.close())
  await linkByQr(t)
  const res = await t.h.call({ method: 'PUT', url: `/chatapp/updateActions?${t.qs}`, payload: { ...t.creds, send_default_msg: false } })
  expect(res.statusCode, res.body).toBe(200)
  return t
}

const log = async (t: WaInstance): Promise<LoggedMessage[]> => (await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })).json.data

describe('decryption with the other identity', () => {
  it('a session kept under the number decrypts the contact’s first LID-addressed message', async () => {
    const t = await linked()
    const ana = t.server.contact('15551234567', 'Ana')
    // Last year's service: no LID for her number, so the device keeps her session under the number.
    ana.lidShared = false
    await ana.sendText('hi, it is Ana')
    await vi.waitFor(async () => expect((await log(t)).map((m) => m.text)).toEqual(['hi, it is Ana']), WAIT)

    ana.lidShared = true
    ana.addressing = 'lid'
    const id = await ana.sendText('same Ana, now by LID')
    await vi.waitFor(async () => expect((await log(t)).find((m) => m.id === id)).toMatchObject({ type: 'text', text: 'same Ana, now by LID', chatId: ana.jid }), WAIT)
    // The session goes on under the LID: her next message, and a reply both ways.
    const next = await ana.sendText('and again')
    await vi.waitFor(async () => expect((await log(t)).find((m) => m.id === next)).toMatchObject({ type: 'text', text: 'and again' }), WAIT)
    const sent = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: '15551234567', message: 'Got it, Ana' } })
    expect(sent.statusCode, sent.body).toBe(200)
    await vi.waitFor(() => expect(ana.received()).toEqual(['Got it, Ana']), WAIT)
  })

  it('once the number’s LID is known, the contact’s next number-addressed message still decrypts', async () => {
    const t = await linked()
    const ana = t.server.contact('15551234567', 'Ana')
    ana.lidShared = false
    await ana.sendText('hi, it is Ana')
    await vi.waitFor(async () => expect((await log(t)).map((m) => m.text)).toEqual(['hi, it is Ana']), WAIT)

    ana.lidShared = true
    expect(ana.revealPn()).toBe(true)
    // The mapping is stored before the next message is read (the notification comes first on the socket).
    const id = await ana.sendText('still Ana')
    await vi.waitFor(async () => expect((await log(t)).find((m) => m.id === id)).toMatchObject({ type: 'text', text: 'still Ana' }), WAIT)
  })
})
