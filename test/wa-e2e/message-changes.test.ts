/**
 * What customers and the owner do to messages already in a chat, on the real channel against the
 * protocol test server (test/support/wa-server/message-changes.ts, docs/baileys.md "Edits, deletions,
 * reactions and polls"): an edit replaces the text (marked edited, the original kept) and is never
 * answered by the bot; a deletion for everyone removes the text and media from storage and search and
 * keeps a record; reactions both ways are shown on the message; votes on the shop's polls are counted.
 * Each change is a webhook event.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver'
import { join } from 'node:path'
import type { LoggedMessage } from '../../src/shared/schemas/records'
import { MediaFiles } from '../../src/main/services/messages/media-files'

afterAll(waTestFile())

const WAIT = { timeout: 5000 }
const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function call(t: WaInstance, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const sep = url.includes('?') ? '&' : '?'
  const res = await t.h.call({ method, url: `${url}${sep}${t.qs}`, ...(payload ? { payload: { ...t.creds, ...payload } } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

/** A linked instance that answers "pizza" with an intent, no default message, and a webhook for `events`. */
async function linked(events: string[]): Promise<{ t: WaInstance; rx: Receiver }> {
  const t = await startWaInstance()
  cleanup.push(() => t.close())
  await linkByQr(t)
  const rx = await startReceiver()
  cleanup.push(() => rx.stop())
  await call(t, 'PUT', '/chatapp/updateActions', { send_default_msg: false, send_webhook: true })
  await call(t, 'PUT', '/chatapp/setWebhook', { webhook_url: `${rx.url}/hook`, events })
  const intent = await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Pizza', keyword: 'pizza,pizzas', reply: 'Pizza it is!' } })
  expect(intent.statusCode, intent.body).toBe(200)
  return { t, rx }
}

const entry = async (t: WaInstance, id: string): Promise<LoggedMessage | undefined> => ((await call(t, 'GET', '/chatapp/messages')) as LoggedMessage[]).find((m) => m.id === id)
const events = (rx: Receiver, name: string) => rx.requests.filter((r) => r.json.event === name).map((r) => r.json.data as Record<string, unknown>)

describe('edits', () => {
  it('a customer’s edit replaces the text, marked edited with the original kept; the bot does not answer it; onMessageEdit', async () => {
    const { t, rx } = await linked(['onMessage', 'onMessageEdit'])
    const ana = t.server.contact('15551234567', 'Ana')
    const id = await ana.sendText('2 pizzas please')
    await vi.waitFor(() => expect(ana.received()).toEqual(['Pizza it is!']), WAIT)

    await ana.edit(id, '3 pizzas please')
    await vi.waitFor(async () => expect(await entry(t, id)).toMatchObject({ text: '3 pizzas please', edited: { history: [{ text: '2 pizzas please' }] } }), WAIT)
    expect((await entry(t, id))!.edited!.at).toBeGreaterThan(0)
    await vi.waitFor(() => expect(events(rx, 'onMessageEdit')).toEqual([expect.objectContaining({ id, text: '3 pizzas please', previousText: '2 pizzas please', chatId: ana.jid })]), WAIT)
    // The edit is not a new message: no second answer, no onMessage, one log entry.
    await ana.sendText('thanks')
    await vi.waitFor(async () => expect((await call(t, 'GET', '/chatapp/messages')).map((m: LoggedMessage) => m.text)).toContain('thanks'), WAIT)
    await vi.waitFor(() => expect(events(rx, 'onMessage').map((d) => d.text)).toEqual(['2 pizzas please', 'thanks']), WAIT)
    expect(ana.received()).toEqual(['Pizza it is!'])
    // The inbox shows the new text.
    expect((await call(t, 'GET', '/chatapp/messages', undefined)).filter((m: LoggedMessage) => m.id === id)).toHaveLength(1)
  })

  it('an edit from someone other than the author is ignored', async () => {
    const { t } = await linked([])
    const ana = t.server.contact('15551234567', 'Ana')
    const bo = t.server.contact('15559876543', 'Bo')
    const id = await ana.sendText('2 pizzas please')
    await vi.waitFor(async () => expect(await entry(t, id)).toMatchObject({ text: '2 pizzas please' }), WAIT)
    await bo.edit(id, 'nothing for Ana')
    await bo.sendText('hi')
    await vi.waitFor(async () => expect((await call(t, 'GET', '/chatapp/messages')).map((m: LoggedMessage) => m.text)).toContain('hi'), WAIT)
    expect(await entry(t, id)).toMatchObject({ text: '2 pizzas please' })
    expect((await entry(t, id))!.edited).toBeUndefined()
  })
})

describe('deletions for everyone', () => {
  it('a customer’s deletion removes the text from storage and search, keeps a record, onMessageDelete', async () => {
    const { t, rx } = await linked(['onMessageDelete'])
    const ana = t.server.contact('15551234567', 'Ana')
    const id = await ana.sendText('my card number is 4111 1111')
    await vi.waitFor(async () => expect(await call(t, 'GET', '/chatapp/messages?q=4111')).toHaveLength(1), WAIT)
    await ana.edit(id, 'my card number is 4111 1111 1111')

    await vi.waitFor(async () => expect((await entry(t, id))?.edited).toMatchObject({ history: [{ text: 'my card number is 4111 1111' }] }), WAIT)
    await ana.deleteForEveryone(id)
    await vi.waitFor(async () => expect(await entry(t, id)).toMatchObject({ text: '', deleted: { by: 'customer' } }), WAIT)
    const gone = (await entry(t, id))!
    expect(gone.edited).toBeUndefined()
    expect(JSON.stringify(gone)).not.toContain('4111')
    expect(await call(t, 'GET', '/chatapp/messages?q=4111')).toEqual([])
    await vi.waitFor(() => expect(events(rx, 'onMessageDelete')).toEqual([expect.objectContaining({ id, chatId: ana.jid, deleted: expect.objectContaining({ by: 'customer' }) })]), WAIT)
    expect(JSON.stringify(events(rx, 'onMessageDelete'))).not.toContain('4111')
  })

  it('a deleted picture can no longer be downloaded', async () => {
    const { t } = await linked([])
    const ana = t.server.contact('15551234567', 'Ana')
    const id = await ana.sendImage(Buffer.from('fake-jpeg-bytes'), { mimetype: 'image/jpeg', caption: 'my passport' })
    await vi.waitFor(async () => expect((await entry(t, id))?.media).toMatchObject({ mimetype: 'image/jpeg' }), WAIT)
    const before = await t.h.call({ method: 'GET', url: `/chatapp/messages/${id}/media?${t.qs}` })
    expect(before.statusCode, before.body).toBe(200)
    // The desk keeps what it downloaded (media/<instance>/<message>): the deletion must take it too.
    const kept = () => new MediaFiles(join(t.h.dataDir, 'media')).read(t.inst._id, id)
    expect(await kept()).not.toBeNull()
    await ana.deleteForEveryone(id)
    await vi.waitFor(async () => expect((await entry(t, id))?.deleted).toMatchObject({ by: 'customer' }), WAIT)
    const gone = (await entry(t, id))!
    expect(gone.media).toBeUndefined()
    expect(gone.text).toBe('')
    const after = await t.h.call({ method: 'GET', url: `/chatapp/messages/${id}/media?${t.qs}` })
    expect(after.statusCode).toBe(404)
    expect(await kept()).toBeNull()
  })

  it('the owner deleting the shop’s message on the phone shows the same way', async () => {
    const { t } = await linked([])
    const ana = t.server.contact('15551234567', 'Ana')
    const sent = (await call(t, 'POST', '/chatapp/message', { chatId: '15551234567', message: 'Your total is 99' })).message
    await vi.waitFor(() => expect(ana.received()).toEqual(['Your total is 99']), WAIT)
    await t.server.phone.deleteForEveryone(ana.jid, sent.key.id)
    await vi.waitFor(async () => expect(await entry(t, sent.key.id)).toMatchObject({ text: '', fromMe: true, deleted: { by: 'phone' } }), WAIT)
  })

  it('a deletion by someone other than the author is ignored', async () => {
    const { t } = await linked([])
    const ana = t.server.contact('15551234567', 'Ana')
    const bo = t.server.contact('15559876543', 'Bo')
    const id = await ana.sendText('keep me')
    await vi.waitFor(async () => expect(await entry(t, id)).toMatchObject({ text: 'keep me' }), WAIT)
    await bo.deleteForEveryone(id)
    await bo.sendText('hi')
    await vi.waitFor(async () => expect((await call(t, 'GET', '/chatapp/messages')).map((m: LoggedMessage) => m.text)).toContain('hi'), WAIT)
    expect(await entry(t, id)).toMatchObject({ text: 'keep me' })
  })
})

describe('reactions', () => {
  it('a customer’s reaction on the shop’s message is shown, changed and removed; onMessageReaction', async () => {
    const { t, rx } = await linked(['onMessageReaction'])
    const ana = t.server.contact('15551234567', 'Ana')
    const sent = (await call(t, 'POST', '/chatapp/message', { chatId: '15551234567', message: 'Your order is ready' })).message
    const id = sent.key.id as string
    await vi.waitFor(() => expect(ana.received()).toEqual(['Your order is ready']), WAIT)

    await ana.react({ id, fromMe: false }, '👍')
    await vi.waitFor(async () => expect((await entry(t, id))?.reactions).toEqual([expect.objectContaining({ by: ana.jid, emoji: '👍', fromMe: false })]), WAIT)
    await ana.react({ id, fromMe: false }, '❤️')
    await vi.waitFor(async () => expect((await entry(t, id))?.reactions).toEqual([expect.objectContaining({ by: ana.jid, emoji: '❤️' })]), WAIT)
    await ana.react({ id, fromMe: false }, '')
    await vi.waitFor(async () => expect((await entry(t, id))?.reactions ?? []).toEqual([]), WAIT)
    await vi.waitFor(() => expect(events(rx, 'onMessageReaction').map((d) => d.emoji)).toEqual(['👍', '❤️', '']), WAIT)
    expect(events(rx, 'onMessageReaction')[0]).toMatchObject({ messageId: id, chatId: ana.jid, by: ana.jid, fromMe: false })
  })

  it('the shop reacts through the API: the customer gets it and the message shows it', async () => {
    const { t } = await linked([])
    const ana = t.server.contact('15551234567', 'Ana')
    const id = await ana.sendText('Is the blue one in stock?')
    await vi.waitFor(async () => expect(await entry(t, id)).toMatchObject({ text: 'Is the blue one in stock?' }), WAIT)

    const res = await call(t, 'POST', '/chatapp/message/reaction', { chatId: '15551234567', messageId: id, emoji: '👀' })
    expect(res).toMatchObject({ messageId: id, emoji: '👀' })
    await vi.waitFor(() => expect(ana.messages().map((m) => m.message.reactionMessage).filter(Boolean)).toEqual([expect.objectContaining({ text: '👀', key: expect.objectContaining({ id }) })]), WAIT)
    expect((await entry(t, id))?.reactions).toEqual([expect.objectContaining({ emoji: '👀', fromMe: true })])

    const unknown = await t.h.call({ method: 'POST', url: `/chatapp/message/reaction?${t.qs}`, payload: { ...t.creds, chatId: '15551234567', messageId: 'NOPE', emoji: '👍' } })
    expect(unknown.statusCode).toBe(404)
  })

  it('a reaction the owner makes on the phone is shown too', async () => {
    const { t } = await linked([])
    const ana = t.server.contact('15551234567', 'Ana')
    const id = await ana.sendText('Thanks for the pizza!')
    await vi.waitFor(async () => expect(await entry(t, id)).toMatchObject({ text: 'Thanks for the pizza!' }), WAIT)
    await t.server.phone.react(ana.jid, { id, fromMe: false }, '🙏')
    await vi.waitFor(async () => expect((await entry(t, id))?.reactions).toEqual([expect.objectContaining({ emoji: '🙏', fromMe: true })]), WAIT)
  })
})

describe('poll votes', () => {
  for (const addressing of ['pn', 'lid'] as const) {
    it(`votes on the shop’s poll are decrypted and counted per option (${addressing}-addressed voters); onPollVote`, async () => {
      const { t, rx } = await linked(['onPollVote'])
      const ana = t.server.contact('15551234567', 'Ana')
      ana.addressing = addressing
      // Ana wrote first (the chat exists), then the owner sends her a poll from the phone.
      await ana.sendText('hello')
      const poll = await t.server.phone.sendPoll(ana.jid, 'Which pizza on Friday?', ['Margherita', 'Diavola', 'Funghi'])
      await vi.waitFor(async () => expect(await entry(t, poll.id)).toMatchObject({ type: 'poll', text: 'Which pizza on Friday?' }), WAIT)

      await ana.vote(poll, ['Diavola'])
      const counts = async () => (await entry(t, poll.id))?.poll?.options.map((o) => [o.name, o.votes])
      await vi.waitFor(async () => expect(await counts()).toEqual([['Margherita', 0], ['Diavola', 1], ['Funghi', 0]]), WAIT)
      // A changed vote replaces the voter's earlier one.
      await ana.vote(poll, ['Funghi'])
      await vi.waitFor(async () => expect(await counts()).toEqual([['Margherita', 0], ['Diavola', 0], ['Funghi', 1]]), WAIT)
      expect((await entry(t, poll.id))?.poll?.voters).toEqual([expect.objectContaining({ by: ana.jid, options: ['Funghi'] })])
      // A withdrawn vote (no option) removes the voter.
      await ana.vote(poll, [])
      await vi.waitFor(async () => expect(await counts()).toEqual([['Margherita', 0], ['Diavola', 0], ['Funghi', 0]]), WAIT)
      await vi.waitFor(() => expect(events(rx, 'onPollVote').map((d) => d.selected)).toEqual([['Diavola'], ['Funghi'], []]), WAIT)
      expect(events(rx, 'onPollVote')[1]).toMatchObject({ pollId: poll.id, chatId: ana.jid, by: ana.jid, poll: { options: expect.any(Array) } })
    })
  }
})
