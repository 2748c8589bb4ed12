/**
 * Writes a long chat history straight into a stopped server's data dir, through the core's message
 * repository (one transaction): the API has no bulk path for inbound messages, and 5,000 sandbox
 * deliveries take minutes on a CI machine (about 25 ms each, bot pipeline included).
 */
import { openStorage } from '../../src/main/store/storage'
import type { LoggedMessage } from '../../src/shared/schemas/records'

export interface SeededChat {
  chatId: string
  /** Oldest first. */
  messages: LoggedMessage[]
}

/**
 * Appends `count` messages to `chatId` (digits) of `instanceId`, a minute apart and ending `endMs`,
 * the customer and the desk taking turns; `text(i)` writes message i (0 = the oldest).
 */
export async function seedChat(dataDir: string, instanceId: string, opts: { chatId: string; pushName: string; count: number; endMs: number; text(i: number): string }): Promise<SeededChat> {
  const chatId = `${opts.chatId}@s.whatsapp.net`
  const messages: LoggedMessage[] = Array.from({ length: opts.count }, (_, i) => {
    const fromMe = i % 3 === 2
    return {
      id: `SEED${opts.chatId}${String(i).padStart(6, '0')}`,
      chatId,
      fromMe,
      pushName: fromMe ? null : opts.pushName,
      type: 'text',
      text: opts.text(i),
      timestamp: opts.endMs - (opts.count - 1 - i) * 60_000,
      status: fromMe ? 'READ' : 'RECEIVED',
      source: fromMe ? 'desk' : 'inbound'
    }
  })
  const storage = await openStorage(dataDir)
  try {
    const added = await storage.repos.messages.appendMany(instanceId, messages)
    if (added !== opts.count) throw new Error(`seeded ${added} of ${opts.count} messages`)
  } finally {
    await storage.close()
  }
  return { chatId, messages }
}
