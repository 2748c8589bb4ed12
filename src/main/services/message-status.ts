/**
 * Delivery status of sent messages in the message log (docs/design.md §13): channels report status
 * changes ({@link MessageStatusUpdate}); each one that moves a message forward is written to its log
 * entry and announced (`status` on the event bus → the `onMessageStatus` webhook and the UI's ticks).
 *
 * The rules (statuses only move forward, …) are domain/delivery-status.ts's. A status may arrive before the send that caused it is logged (a quick ack merged into the
 * send's own echo): it is kept aside for a while and applied once the entry is appended ({@link
 * MessageStatusService.logged}).
 */
import { boundedLru } from '../lru'
import type { MessageStatusUpdate } from '../channel/types'
import type { CoreEventBus } from '../events'
import type { Logger } from '../logger'
import type { MessageRepo } from '../store/repos/message-repo'
import type { LoggedMessage } from '../../shared/schemas/records'

/** What writing a report made of its entry (see `MessageRepo.recordStatus`), or the write's error. */
type Written = LoggedMessage | null | undefined | Error

export interface MessageStatusDeps {
  messages: Pick<MessageRepo, 'find' | 'recordStatuses'>
  events: CoreEventBus
  logger: Logger
}

export class MessageStatusService {
  /** Updates for messages not logged yet, by `instanceId/messageId`; kept two minutes. */
  private readonly early = boundedLru<string, MessageStatusUpdate[]>(2000, { ttl: 2 * 60_000 })

  constructor(private readonly deps: MessageStatusDeps) {}

  /** Reports waiting for the next turn of the event loop, written together. */
  private waiting: Array<{ instanceId: string; update: MessageStatusUpdate; written: (r: Written) => void }> = []

  /** Applies a channel's report to the log (see the module doc). Never rejects. */
  async report(instanceId: string, update: MessageStatusUpdate): Promise<void> {
    const updated = await this.write(instanceId, update)
    if (updated instanceof Error) return this.deps.logger.error({ err: updated, instanceId, messageId: update.id }, 'could not record a message status')
    try {
      if (updated === undefined) {
        const key = `${instanceId}/${update.id}`
        this.early.set(key, [...(this.early.get(key) ?? []), update])
        // The send may have been logged while we looked: then nobody else will pick this up.
        if (await this.deps.messages.find(instanceId, update.id)) await this.logged(instanceId, update.id)
        return
      }
      if (updated) await this.deps.events.emitDurable('status', { instanceId, message: updated })
    } catch (err) {
      this.deps.logger.error({ err, instanceId, messageId: update.id }, 'could not record a message status')
    }
  }

  /**
   * Writes a report with the others of this turn of the event loop: one call to the database (one
   * job of its group commit) for all of them; a send's two acknowledgements usually come together.
   * Decided on the entry as stored, in the write's transaction (domain/delivery-status.ts): the
   * library may report one status twice (its ack handler and its own update), and only the first may
   * move the entry and be announced. Answers the entry after it, null or undefined
   * (`MessageRepo.recordStatus`), or the write's error.
   */
  private write(instanceId: string, update: MessageStatusUpdate): Promise<Written> {
    return new Promise((written) => {
      this.waiting.push({ instanceId, update, written })
      if (this.waiting.length === 1) setImmediate(() => void this.flush())
    })
  }

  private async flush(): Promise<void> {
    const batch = this.waiting
    this.waiting = []
    try {
      const answers = await this.deps.messages.recordStatuses(batch.map(({ instanceId, update }) => ({ instanceId, update })))
      batch.forEach((r, i) => r.written(answers[i]))
    } catch (err) {
      for (const r of batch) r.written(err instanceof Error ? err : new Error(String(err)))
    }
  }

  /**
   * Applies the updates of message `id` that arrived before it was logged (call right after the
   * append), each written and announced as if it had come now. Never rejects.
   */
  async logged(instanceId: string, id: string): Promise<void> {
    const key = `${instanceId}/${id}`
    const early = this.early.get(key)
    if (!early) return
    this.early.delete(key)
    for (const update of early) await this.report(instanceId, update)
  }
}
