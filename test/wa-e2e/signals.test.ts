/**
 * Platform signals, end to end (docs/baileys.md "Platform signals", Baileys #2445): WhatsApp's cap on
 * messages to people who have not answered (`message-capping.update`) and the reach-out time lock
 * (`connection.update.reachoutTimeLock`) show in the instance's status, and while either holds, sends
 * that are not replies (to people who never wrote) are paused with a clear 409 — replies still go out.
 */
import { describe, expect, it, vi } from 'vitest'
import { waTestSuite, type WaInstance } from '../helpers/wa-instance'

const { linked } = waTestSuite()

const info = async (t: WaInstance) => (await t.h.call({ method: 'GET', url: `/chatapp/instance?${t.qs}` })).json.data.instance_data
const send = (t: WaInstance, chatId: string, message: string) => t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId, message } })

describe('platform signals', () => {
  it('message capping: shown in the status; new chats paused with the reason, replies to people who wrote still sent', async () => {
    const t = await linked()
    const ana = t.server.contact('15551234567', 'Ana')
    t.server.contact('15557654321', 'Bob')
    await ana.sendText('hi')
    await vi.waitFor(async () => expect((await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })).json.data.length).toBeGreaterThanOrEqual(1), { timeout: 5000 })

    const cycleEnd = Math.floor(Date.now() / 1000) + 3600
    expect(t.server.capMessaging({ capping_status: 'CAPPED', used_quota: 250, total_quota: 250, cycle_end_timestamp: String(cycleEnd) })).toBe(true)
    await vi.waitFor(async () => expect((await info(t)).limits?.capping).toMatchObject({ status: 'CAPPED', used: 250, total: 250, until: new Date(cycleEnd * 1000).toISOString() }), { timeout: 5000 })

    const toNew = await send(t, '15557654321', 'Special offer!')
    expect(toNew.statusCode).toBe(409)
    expect(toNew.json.message).toMatch(/WhatsApp caps new chats.*250 of 250.*people who have written to you/i)
    const reply = await send(t, '15551234567', 'Thanks for your message')
    expect(reply.statusCode, reply.body).toBe(200)

    t.server.capMessaging({ capping_status: 'NONE', used_quota: 10, total_quota: 250 })
    await vi.waitFor(async () => expect((await info(t)).limits?.capping?.status).toBe('NONE'), { timeout: 5000 })
    expect((await send(t, '15557654321', 'Special offer!')).statusCode).toBe(200)
  })

  it('a reach-out time lock: shown with its end; new chats paused until it is lifted', async () => {
    const t = await linked()
    t.server.contact('15557654321', 'Bob')
    const endsAt = Date.now() + 2 * 3600_000
    expect(t.server.lockReachout({ active: true, endsAt })).toBe(true)
    await vi.waitFor(async () => expect((await info(t)).limits?.reachout_lock).toMatchObject({ active: true, until: new Date(Math.floor(endsAt / 1000) * 1000).toISOString() }), { timeout: 5000 })
    const res = await send(t, '15557654321', 'Hello')
    expect(res.statusCode).toBe(409)
    expect(res.json.message).toMatch(/reaching out to new people/i)
    t.server.lockReachout({ active: false })
    await vi.waitFor(async () => expect((await info(t)).limits?.reachout_lock?.active).toBe(false), { timeout: 5000 })
    expect((await send(t, '15557654321', 'Hello')).statusCode).toBe(200)
  })
})
