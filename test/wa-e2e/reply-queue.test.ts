/**
 * A bot reply's delivery does not hold the instance's next customer (src/main/services/inbound-pipeline.ts
 * `process`, src/main/bot/bot-engine.ts `decide`): an instance handles its messages one at a time, and
 * a message's handling used to end only once its reply was sent and logged — after the "typing…"
 * pause every bot reply shows (Baileys `sendPresenceUpdate('composing')`, 1 s by default), the
 * library's commit of the Signal session (lib/Socket/messages-send.js: `relayMessage` sends inside
 * `keys.transaction`, whose commit follows) and the log write. Every other customer of the instance
 * waited meanwhile. Now the next message is handled once the reply has its place in the send queue;
 * a LID's re-keying still waits for the reply to be logged.
 */
import { describe, expect, it, vi } from 'vitest'
import { waTestSuite, type WaInstance } from '../helpers/wa-instance'

const { linked } = waTestSuite()

const log = async (t: WaInstance) => (await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })).json.data as Array<{ chatId: string; text: string; fromMe: boolean; source: string }>

describe('the inbound queue and the bot’s replies', () => {
  it('a customer who writes while the bot is typing its reply to another is logged, decided and answered without waiting for that reply', async () => {
    // A long "typing…" pause, so the order below cannot come from a fast machine.
    const t = await linked({ channel: { composingMs: 5000 } })
    await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Ping', keyword: 'ping', reply: 'pong' } })
    await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Hours', keyword: 'hours', reply: 'We open at 9.' } })
    const ana = t.server.contact('15551234567', 'Ana')
    const bo = t.server.contact('15559876543', 'Bo')

    await ana.sendText('ping')
    await vi.waitFor(async () => expect((await log(t)).map((m) => m.text)).toContain('ping'), { timeout: 5000 })
    await bo.sendText('hours?')
    // Bo's message is in the log while the bot is still typing Ana's answer.
    await vi.waitFor(async () => expect((await log(t)).map((m) => m.text)).toContain('hours?'), { timeout: 4000 })
    expect((await log(t)).filter((m) => m.source === 'bot')).toEqual([])
    expect(ana.received()).toEqual([])

    // Both answers arrive, in the order decided: Ana's first.
    await vi.waitFor(() => expect(bo.received()).toEqual(['We open at 9.']), { timeout: 25_000 })
    expect(ana.received()).toEqual(['pong'])
    await vi.waitFor(async () => expect((await log(t)).filter((m) => m.source === 'bot').map((m) => [m.chatId, m.text])).toEqual([
      ['15551234567@s.whatsapp.net', 'pong'],
      ['15559876543@s.whatsapp.net', 'We open at 9.']
    ]))
    // Two 5 s typing pauses in a row, with room for a loaded machine.
  }, 45_000)
})
