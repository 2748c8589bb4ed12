/**
 * Groups end to end: the REAL Baileys channel against the local protocol test server
 * (test/support/wa-server, groups.ts). Members write to a group with their sender keys (the first
 * message carries the SenderKeyDistributionMessage); the app logs it with the group as the chat and
 * the member as the sender, announces it by webhook, and its bot answers in the group only with
 * `reply_group_msgs` on (docs/design.md §10). The client's group messages (bot replies, API sends to a
 * group JID) are decrypted by every member with the sender key the client distributed.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { startReceiver, verify } from '../helpers/webhook-receiver'
import type { FakeGroup } from '../support/wa-server/groups'
import { textOf } from '../support/wa-server/peer'
import { linkByQr, startWaInstance, waTestFile } from '../helpers/wa-instance'

afterAll(waTestFile())

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

const WAIT = { timeout: 5000 }
const ACCOUNT = '15550001111'

/** A linked instance (init → QR → the phone scans → CONNECTED) and a group of the account, Ana and Ben. */
async function setup(addressingMode: 'pn' | 'lid' = 'pn') {
  const t = await startWaInstance({ accountNumber: ACCOUNT })
  cleanup.push(() => t.close())
  const { server, h, inst, creds, qs } = t

  const ana = server.contact('15551234567', 'Ana')
  const ben = server.contact('15557654321', 'Ben')
  const group = server.addGroup({ subject: 'Store team', participants: [server.phone, ana, ben], admins: [server.phone], addressingMode })

  await linkByQr(t)

  const call = h.call
  const actions = async (flags: Record<string, boolean>) => {
    const res = await call({ method: 'PUT', url: `/chatapp/updateActions?${qs}`, payload: flags })
    expect(res.statusCode, res.body).toBe(200)
  }
  const intent = async (keyword: string, reply: string) => {
    const res = await call({ method: 'POST', url: '/intent', payload: { ...creds, title: keyword, keyword, reply } })
    expect(res.statusCode, res.body).toBe(200)
  }
  const log = async (): Promise<Array<Record<string, unknown>>> => (await call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data
  const activity = async (): Promise<Array<{ matched: string; actions: Array<{ action: string; ok: boolean; error?: string }> }>> =>
    (await call({ method: 'GET', url: `/chatapp/bot/activity?${qs}` })).json.data
  return { server, h, inst, creds, qs, ana, ben, group, actions, intent, log, activity }
}

/** Texts the members decrypted from the client's messages to `group`, as `member: text`. */
const delivered = (group: FakeGroup): string[] => group.messages().map((m) => `${m.member.split('@')[0]}: ${textOf(m.message)}`)

describe('groups on the local WhatsApp protocol test server', () => {
  it('a member writes in a group: logged with the group as the chat and the member as the sender, and sent by webhook', async () => {
    const t = await setup()
    const rx = await startReceiver()
    cleanup.push(() => rx.stop())
    const hook = await t.h.call({ method: 'PUT', url: `/chatapp/setWebhook?${t.qs}`, payload: { webhook_url: rx.url, events: ['onMessage'] } })
    expect(hook.statusCode, hook.body).toBe(200)
    await t.actions({ send_webhook: true, reply_msgs: false })

    const first = await t.ana.sendGroupText(t.group, 'Morning, who opens today?')
    // Baileys handles inbound stanzas concurrently (messages-recv.js handleMessage stores LID mappings
    // before its message mutex), so the second could overtake the first and its sender key: wait.
    await vi.waitFor(async () => expect(await t.log()).toHaveLength(1), WAIT)
    const second = await t.ana.sendGroupText(t.group, 'I can')
    // The first message carried Ana's sender key (a new 1:1 session: pkmsg); the second only the skmsg.
    expect(t.ana.sentTypes()).toEqual(['pkmsg+skmsg', 'skmsg'])
    const member = {
      chatId: t.group.jid,
      fromMe: false,
      pushName: 'Ana',
      type: 'text',
      source: 'inbound',
      status: 'RECEIVED',
      senderId: '15551234567@s.whatsapp.net',
      senderPn: '15551234567@s.whatsapp.net',
      senderLid: t.ana.lid,
      // reply_msgs is off here: the bot's decision record says so.
      bot: { action: 'none', reason: 'reply_msgs_off' }
    }
    await vi.waitFor(async () => expect(await t.log()).toHaveLength(2), WAIT)
    expect(await t.log()).toEqual([
      { ...member, id: first, text: 'Morning, who opens today?', timestamp: expect.any(Number) },
      { ...member, id: second, text: 'I can', timestamp: expect.any(Number) }
    ])
    const byChat = await t.h.call({ method: 'GET', url: `/chatapp/messages?chatId=${encodeURIComponent(t.group.jid)}&${t.qs}` })
    expect(byChat.json.data.map((m: { id: string }) => m.id)).toEqual([first, second])

    await vi.waitFor(() => expect(rx.requests).toHaveLength(2), WAIT)
    const bodies = rx.requests.map((r) => verify(r, hook.json.data.secret))
    expect(bodies.map((b) => b.event)).toEqual(['onMessage', 'onMessage'])
    expect(bodies[0]!.data).toMatchObject({ ...member, id: first, text: 'Morning, who opens today?' })
  })

  it('with reply_group_msgs off the bot stays silent in the group even when an intent matches', async () => {
    const t = await setup()
    await t.intent('hi', 'Hello from the desk!')
    await t.actions({ reply_group_msgs: false })
    const inGroup = await t.ana.sendGroupText(t.group, 'hi')
    await vi.waitFor(async () => expect((await t.log()).map((m) => m.id)).toEqual([inGroup]), WAIT)
    // The pipeline handles an instance's messages one at a time (logging, then the bot): once Ana's
    // private "hi", sent after the group one was logged, is answered, the bot was done with the group one.
    await t.ana.sendText('hi')
    await vi.waitFor(() => expect(t.ana.received()).toEqual(['Hello from the desk!']), WAIT)
    expect(t.ana.messages().map((m) => m.group)).toEqual([undefined])
    expect(t.group.messages()).toEqual([])
    await vi.waitFor(async () => expect(await t.log()).toHaveLength(3), WAIT)
    expect((await t.log()).map((m) => [m.chatId, m.senderId, m.source, m.text])).toEqual([
      [t.group.jid, t.ana.jid, 'inbound', 'hi'],
      [t.ana.jid, t.ana.jid, 'inbound', 'hi'],
      [t.ana.jid, undefined, 'bot', 'Hello from the desk!']
    ])
  })

  it('with reply_group_msgs on the bot answers in the group: every member decrypts the reply with the sender key the client distributed', async () => {
    const t = await setup()
    await t.intent('hi', 'Hello from the desk!')
    await t.intent('hours', 'We open at 9.')
    await t.actions({ reply_group_msgs: true })
    await t.ana.sendGroupText(t.group, 'hi')
    // Every member, the account's own phone included (it holds the client's key as its device 0).
    await vi.waitFor(
      () => expect(delivered(t.group)).toEqual(['15550001111: Hello from the desk!', '15551234567: Hello from the desk!', '15557654321: Hello from the desk!']),
      WAIT
    )
    // The reply went to the group, not to Ana privately: her copy says which group.
    expect(t.ana.messages().map((m) => [m.group, m.type, textOf(m.message)])).toEqual([[t.group.jid, 'skmsg', 'Hello from the desk!']])
    expect(t.ben.received()).toEqual(['Hello from the desk!'])
    await vi.waitFor(async () =>
      expect((await t.log()).map((m) => [m.chatId, m.senderId, m.source, m.text])).toEqual([
        [t.group.jid, t.ana.jid, 'inbound', 'hi'],
        [t.group.jid, undefined, 'bot', 'Hello from the desk!']
      ])
    )

    // Ben writes for the first time (his own sender key comes along); the client's key is already with
    // every member, so the second reply is a bare skmsg each member decrypts with the key it holds.
    await t.ben.sendGroupText(t.group, 'hours?')
    await vi.waitFor(() => expect(t.group.messages()).toHaveLength(6), WAIT)
    expect(delivered(t.group).slice(3)).toEqual(['15550001111: We open at 9.', '15551234567: We open at 9.', '15557654321: We open at 9.'])
    // Ben's key went over the 1:1 session the client opened with him to send its own key (a plain msg).
    expect(t.ben.sentTypes()).toEqual(['msg+skmsg'])
    expect(t.ana.messages().map((m) => m.type)).toEqual(['skmsg', 'skmsg'])
  })

  it('a LID-addressed group: the sender is the member\'s LID with the phone number beside it; POST /chatapp/message to the group JID reaches every member', async () => {
    const t = await setup('lid')
    await t.actions({ reply_msgs: false })
    const id = await t.ben.sendGroupText(t.group, 'Stock count done')
    await vi.waitFor(async () => expect(await t.log()).toHaveLength(1), WAIT)
    expect((await t.log())[0]).toEqual({
      id,
      chatId: t.group.jid,
      fromMe: false,
      pushName: 'Ben',
      type: 'text',
      text: 'Stock count done',
      timestamp: expect.any(Number),
      status: 'RECEIVED',
      source: 'inbound',
      senderId: t.ben.lid,
      senderPn: '15557654321@s.whatsapp.net',
      senderLid: t.ben.lid,
      bot: { action: 'none', reason: 'reply_msgs_off' }
    })

    const res = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: t.group.jid, message: 'Thanks, team' } })
    expect(res.statusCode, res.body).toBe(200)
    await vi.waitFor(() => expect(delivered(t.group)).toEqual(['15550001111: Thanks, team', '15551234567: Thanks, team', '15557654321: Thanks, team']), WAIT)
    await vi.waitFor(async () => expect(await t.log()).toHaveLength(2), WAIT)
    const sent = (await t.log())[1]!
    expect(sent).toMatchObject({ chatId: t.group.jid, text: 'Thanks, team', source: 'api', fromMe: true })
    // One stanza to the group: every member read the same message id the app logged.
    expect(t.group.messages().map((m) => m.id)).toEqual([sent.id, sent.id, sent.id])
  })

  for (const mode of ['pn', 'lid'] as const) {
    it(`a member changes phone (${mode} group): the app's next group message carries its sender key to the new phone, which reads it (Baileys #2704)`, async () => {
      const t = await setup(mode)
      await t.actions({ reply_msgs: false })
      const post = async (message: string) => {
        const res = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: t.group.jid, message } })
        expect(res.statusCode, res.body).toBe(200)
      }
      await post('Shift plan is up')
      await vi.waitFor(() => expect(delivered(t.group)).toHaveLength(3), WAIT)

      // Ana installs WhatsApp on a new phone: new identity, none of the old phone's keys.
      if (mode === 'lid') t.ana.addressing = 'lid'
      const notification = t.ana.changePhone()
      await vi.waitFor(() => expect(t.server.acknowledged(notification)).toBe(true), WAIT)
      await post('Inventory at 5')
      await vi.waitFor(() => expect(delivered(t.group).filter((d) => d.endsWith('Inventory at 5')).sort()).toEqual(['15550001111: Inventory at 5', '15551234567: Inventory at 5', '15557654321: Inventory at 5']), WAIT)
    })
  }

  it('a member changes phone while the app is away: after the login the next group message reaches the new phone (Baileys #2704)', async () => {
    const t = await setup()
    await t.actions({ reply_msgs: false })
    const post = async (h: typeof t.h, message: string) => {
      const res = await h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: t.group.jid, message } })
      expect(res.statusCode, res.body).toBe(200)
    }
    await post(t.h, 'Shift plan is up')
    await vi.waitFor(() => expect(delivered(t.group)).toHaveLength(3), WAIT)

    await t.h.close(true)
    await vi.waitFor(() => expect(t.server.phone.online).toBe(false))
    const notification = t.ana.changePhone()
    const h2 = await t.h.reopen()
    cleanup.push(() => h2.close())
    await vi.waitFor(() => expect(h2.core.instances.get(t.inst._id).settings.status).toBe('CONNECTED'), WAIT)
    await vi.waitFor(() => expect(t.server.acknowledged(notification)).toBe(true), WAIT)
    await post(h2, 'Inventory at 5')
    await vi.waitFor(() => expect(delivered(t.group).filter((d) => d.endsWith('Inventory at 5')).sort()).toEqual(['15550001111: Inventory at 5', '15551234567: Inventory at 5', '15557654321: Inventory at 5']), WAIT)
  })

  it('a member changes phone while the connection is down: after the reconnect the next group message reaches the new phone (Baileys #2704)', async () => {
    const t = await setup()
    await t.actions({ reply_msgs: false })
    const post = async (message: string) => {
      const res = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: t.group.jid, message } })
      expect(res.statusCode, res.body).toBe(200)
    }
    await post('Shift plan is up')
    await vi.waitFor(() => expect(delivered(t.group)).toHaveLength(3), WAIT)

    const logins = t.server.logins.length
    expect(t.server.disconnect()).toBe(1)
    await vi.waitFor(() => expect(t.server.phone.online).toBe(false))
    const notification = t.ana.changePhone()
    await vi.waitFor(() => expect(t.server.logins.length).toBe(logins + 1), { timeout: 10_000 })
    await vi.waitFor(() => expect(t.server.acknowledged(notification)).toBe(true), WAIT)
    await vi.waitFor(() => expect(t.h.core.instances.get(t.inst._id).settings.status).toBe('CONNECTED'), WAIT)
    await post('Inventory at 5')
    await vi.waitFor(() => expect(delivered(t.group).filter((d) => d.endsWith('Inventory at 5')).sort()).toEqual(['15550001111: Inventory at 5', '15551234567: Inventory at 5', '15557654321: Inventory at 5']), WAIT)
  })

  it('add_to_group: the bot reads the group metadata, adds the contact where it is an admin, and refuses where it is not', async () => {
    const t = await setup()
    const customers = t.server.addGroup({ subject: 'Customers', participants: [t.server.phone, t.ana] }) // the account is no admin here
    const carla = t.server.contact('15550009999', 'Carla')
    const withAction = async (keyword: string, group: string) => {
      const res = await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: keyword, keyword, reply: `ok ${keyword}`, action: { add_to_group: group } } })
      expect(res.statusCode, res.body).toBe(200)
    }
    await withAction('join', t.group.jid)
    await withAction('vip', customers.jid)

    await carla.sendText('join')
    await vi.waitFor(async () => expect(await t.activity()).toHaveLength(1), WAIT)
    expect((await t.activity())[0]).toMatchObject({ matched: 'intent "join"', actions: [{ action: 'add_to_group', ok: true }] })
    expect(t.group.participants()).toEqual(['15550001111@s.whatsapp.net', '15551234567@s.whatsapp.net', '15557654321@s.whatsapp.net', carla.jid])

    await carla.sendText('vip')
    await vi.waitFor(async () => expect(await t.activity()).toHaveLength(2), WAIT)
    expect((await t.activity())[1]).toMatchObject({ matched: 'intent "vip"', actions: [{ action: 'add_to_group', ok: false, error: expect.stringMatching(/not an admin/) }] })
    expect(customers.participants()).toEqual(['15550001111@s.whatsapp.net', '15551234567@s.whatsapp.net'])
    await vi.waitFor(() => expect(carla.received()).toEqual(['ok join', 'ok vip']), WAIT)
  })
})
