/**
 * Privacy tokens (trusted-contact tokens, `tctoken`; docs/baileys.md "Privacy tokens"): a contact that
 * writes to the shop issues it a token (a `privacy_token` notification), and a contact that requires
 * one refuses messages without it with error 463. The token is kept with the instance's Signal keys,
 * goes with every later one-to-one message to that contact (also after an app restart), and a refused
 * send shows its reason and is not sent again.
 */
import { describe, expect, it, vi } from 'vitest'
import { waTestSuite, type WaInstance } from '../helpers/wa-instance'

const { linked, cleanup } = waTestSuite()

type Harness = WaInstance['h']
const send = (t: WaInstance, h: Harness, chatId: string, message: string) =>
  h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId, message } })

async function logged(t: WaInstance, h: Harness, id: string) {
  const list = await h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })
  return (list.json.data as Array<{ id: string; status: string; error_code?: string }>).find((m) => m.id === id)
}

describe('privacy tokens (tctoken)', () => {
  it('the token a contact issues when it writes goes with the bot reply and later replies, also after an app restart', async () => {
    const t = await linked()
    await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Hours', keyword: 'open', reply: 'We are open until 10 pm' } })
    const ana = t.server.contact('15551234567', 'Ana')
    ana.addressing = 'lid'
    ana.requiresToken = true
    await ana.sendText('are you open?')
    expect(ana.issuedToken()).toEqual(expect.any(Buffer))
    expect(ana.issuedToken()!.length).toBeGreaterThan(0)
    await vi.waitFor(() => expect(ana.received()).toContain('We are open until 10 pm'), { timeout: 5000 })

    const later = await send(t, t.h, '15551234567', 'Your table is ready')
    expect(later.statusCode, later.body).toBe(200)
    await vi.waitFor(() => expect(ana.received()).toContain('Your table is ready'), { timeout: 5000 })

    // The token was stored with the instance's keys: a restarted app still sends it.
    const h2 = await t.h.restart()
    cleanup(() => h2.close())
    await vi.waitFor(() => expect(h2.core.instances.get(t.inst._id).settings.status).toBe('CONNECTED'), { timeout: 5000 })
    const afterRestart = await send(t, h2, '15551234567', 'See you soon')
    expect(afterRestart.statusCode, afterRestart.body).toBe(200)
    await vi.waitFor(() => expect(ana.received()).toContain('See you soon'), { timeout: 5000 })
    expect(ana.refused()).toEqual([])
  })

  it('a contact that writes from its number (the token notification names its LID in sender_lid): the reply carries the token', async () => {
    const t = await linked()
    const cy = t.server.contact('15550203040', 'Cy')
    cy.requiresToken = true
    await cy.sendText('hello')
    const res = await send(t, t.h, '15550203040', 'Hello Cy, how can we help?')
    expect(res.statusCode, res.body).toBe(200)
    await vi.waitFor(() => expect(cy.received()).toContain('Hello Cy, how can we help?'), { timeout: 5000 })
    expect(cy.refused()).toEqual([])
  })

  it('a contact that requires a token it never issued: each send is ERROR 463 with its reason, sent once and not again', async () => {
    const t = await linked()
    const bob = t.server.contact('15557654321', 'Bob')
    bob.requiresToken = true
    const first = await send(t, t.h, '15557654321', 'Hello Bob')
    expect(first.statusCode, first.body).toBe(200)
    const id1 = first.json.data.message.key.id as string
    await vi.waitFor(async () => expect(await logged(t, t.h, id1)).toMatchObject({ status: 'ERROR', error_code: '463' }), { timeout: 5000 })
    const second = await send(t, t.h, '15557654321', 'Are you there?')
    const id2 = second.json.data.message.key.id as string
    await vi.waitFor(async () => expect(await logged(t, t.h, id2)).toMatchObject({ status: 'ERROR', error_code: '463' }), { timeout: 5000 })
    // One attempt each: the first refusal was not followed by a resend before the second message.
    expect(bob.refused()).toEqual([id1, id2])
    expect(bob.received()).toEqual([])
  })
})
