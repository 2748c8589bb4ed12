/**
 * The inbound pipeline (docs/design.md §13): the bot decides first, the message is logged
 * and announced with that decision record, and the replies go out while those writes are in flight;
 * the message counts as processed only once the writes are done.
 */
import { expect, it } from 'vitest'
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
