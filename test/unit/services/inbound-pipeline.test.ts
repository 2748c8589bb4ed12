/**
 * The inbound pipeline (docs/design.md §13): the bot decides first, the message is logged
 * and announced with that decision record, and the replies go out while those writes are in flight;
 * the message counts as processed only once the writes are done. The next message waits for the
 * previous one's acts, not for its replies' delivery; a change to the log waits for those.
 */
import { expect, it, vi } from 'vitest'
import { InboundPipeline } from '../../../src/main/services/inbound-pipeline'
import { CoreEventBus } from '../../../src/main/events'
import { silentLogger } from '../../../src/main/logger'
import type { InboundMessage } from '../../../src/main/channel/types'
import type { LoggedMessage } from '../../../src/shared/schemas/records'

function gate() {
  let open!: () => void
  const opened = new Promise<void>((r) => (open = r))
  return { open, opened }
}

it('decides, logs with the decision record, and acts while the inbound write is in flight; resolves once it is on disk', async () => {
  const write = gate()
  const order: string[] = []
  const repos = {
    instances: { find: () => ({ _id: 'i1' }) },
    messages: {
      find: async () => undefined,
      append: async (_id: string, entry: LoggedMessage) => {
        order.push(`append ${entry.id} ${entry.bot?.action}:${entry.bot?.ref}`)
        await write.opened
        order.push('append done')
      }
    }
  }
  const events = new CoreEventBus()
  events.onDurable('message', async (e) => void order.push(`webhook queued ${e.message.id}`))
  const pipeline = new InboundPipeline({ repos: repos as never, events, logger: silentLogger() })
  const handled = gate()
  pipeline.use(async (_i, message) => {
    order.push(`bot matches ${message.text}`)
    return {
      record: { action: 'intent', ref: 'Menu' },
      act: async () => {
        order.push('bot replies')
        handled.open()
      }
    }
  })
  const message = { id: 'M1', chatId: '1555@s.whatsapp.net', senderId: '1555@s.whatsapp.net', fromMe: false, type: 'text', text: 'menu', timestamp: 1 } as InboundMessage
  let done = false
  const processing = pipeline.process('i1', message).then(() => (done = true))
  // The bot runs although the write has not finished.
  await handled.opened
  expect(order).toEqual(['bot matches menu', 'append M1 intent:Menu', 'webhook queued M1', 'bot replies'])
  expect(done).toBe(false)
  write.open()
  await processing
  expect(order.at(-1)).toBe('append done')
})

it('decides the next message once the previous one acted, while its replies are still on their way; a change waits for them; each process() resolves once its own replies are delivered', async () => {
  const order: string[] = []
  const repos = {
    instances: { find: () => ({ _id: 'i1' }) },
    messages: { find: async () => undefined, append: async () => undefined }
  }
  const pipeline = new InboundPipeline({ repos: repos as never, events: new CoreEventBus(), logger: silentLogger() })
  const deliveries = new Map<string, ReturnType<typeof gate>>()
  pipeline.use(async (_i, message) => {
    order.push(`decide ${message.id}`)
    const delivery = gate()
    deliveries.set(message.id, delivery)
    return {
      record: { action: 'intent', ref: 'Menu' },
      act: async () => void order.push(`act ${message.id}`),
      delivered: () => delivery.opened.then(() => void order.push(`delivered ${message.id}`))
    }
  })
  pipeline.useChanges(async (_i, change) => void order.push(`change ${change.id}`))
  const message = (id: string) => ({ id, chatId: '1555@s.whatsapp.net', senderId: '1555@s.whatsapp.net', fromMe: false, type: 'text', text: 'menu', timestamp: 1 }) as InboundMessage
  const done: string[] = []
  const first = pipeline.process('i1', message('M1')).then(() => done.push('M1'))
  const second = pipeline.process('i1', message('M2')).then(() => done.push('M2'))
  const changed = pipeline.change('i1', { kind: 'reaction', id: 'M1', chatId: '1555@s.whatsapp.net', senderId: '1555@s.whatsapp.net', fromMe: false, emoji: '👍', timestamp: 2 } as never)
  // M2 is decided and acted on although M1's reply is not delivered; neither process() is done.
  await vi.waitFor(() => expect(order).toEqual(['decide M1', 'act M1', 'decide M2', 'act M2']))
  expect(done).toEqual([])
  deliveries.get('M2')!.open()
  await second
  expect(done).toEqual(['M2'])
  // The change waits for every reply under way before it, M1's too.
  expect(order).not.toContain('change M1')
  deliveries.get('M1')!.open()
  await Promise.all([first, changed])
  expect(order.slice(4)).toEqual(['delivered M2', 'delivered M1', 'change M1'])
})
