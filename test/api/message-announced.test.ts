/**
 * A message is announced (the `message` event the UI, the other workers and some services hear)
 * once it is stored, so whoever reads on hearing it finds it (src/main/events.ts, emitDurable's
 * `stored`): the inbox reloaded on the event and, reading in a SQLite reader thread before the
 * writer had committed the message, kept showing 1 unread of 2 until the next event. Real storage:
 * the harness's database, its reads in reader threads.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { internalsOf } from '../../src/main/core'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
beforeEach(async () => {
  h = await makeHarness()
})
afterEach(async () => {
  await h.close()
})

it('a listener that reads on hearing of a message, received or sent, finds it and its chat’s unread count', async () => {
  const a = await h.connectedInstance()
  await h.call({ method: 'PUT', url: `/chatapp/updateActions?${a.qs}`, payload: { send_default_msg: false, reply_msgs: false } })
  const { repos } = internalsOf(h.core).storage
  const heard: Array<Promise<{ text: string; found: boolean; unread: number | undefined }>> = []
  h.core.events.on('message', (e) => {
    heard.push(
      (async () => {
        const [found, conversation] = await Promise.all([repos.messages.find(e.instanceId, e.message.id), repos.conversations.get(e.instanceId, e.message.chatId, Date.now())])
        return { text: e.message.text, found: found !== undefined, unread: conversation?.unread }
      })()
    )
  })
  for (let i = 1; i <= 5; i++) {
    const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${a.qs}`, payload: { chatId: '15550001111', message: `question ${i}`, pushName: 'Ann' } })
    expect(res.statusCode, res.body).toBe(200)
  }
  const sent = await h.call({ method: 'POST', url: `/chatapp/message?${a.qs}`, payload: { chatId: '15550001111', message: 'an answer' } })
  expect(sent.statusCode, sent.body).toBe(200)
  expect(await Promise.all(heard)).toEqual([
    ...[1, 2, 3, 4, 5].map((i) => ({ text: `question ${i}`, found: true, unread: i })),
    // A send through the API is no person's answer: the chat stays unread.
    { text: 'an answer', found: true, unread: 5 }
  ])
})
