/**
 * The recent UI events with increasing ids, so an event stream that reconnects resumes where it left
 * off (SSE `Last-Event-ID`, WHATWG HTML "Server-sent events") instead of the UI reloading everything.
 * Pure: a bounded buffer; the transport feeds it and asks it what a reconnecting client missed.
 */
import type { ContractEvent } from '../../shared/contract'

export interface NumberedEvent {
  id: number
  event: ContractEvent
}

export class EventReplay {
  private readonly buffer: NumberedEvent[] = []
  private nextId = 1

  /** @param capacity events kept for replay (the newest). */
  constructor(private readonly capacity = 1000) {}

  /** Numbers and keeps `event`; answers it numbered. */
  add(event: ContractEvent): NumberedEvent {
    const numbered = { id: this.nextId++, event }
    this.buffer.push(numbered)
    if (this.buffer.length > this.capacity) this.buffer.shift()
    return numbered
  }

  /**
   * The events after `lastId`, or null when some of them are no longer kept (or `lastId` is not one
   * of ours, e.g. from before a restart): the client must then reload what it shows.
   */
  since(lastId: number): NumberedEvent[] | null {
    if (!Number.isSafeInteger(lastId) || lastId < 0 || lastId >= this.nextId) return null
    const oldestKept = this.buffer[0]?.id ?? this.nextId
    if (lastId < oldestKept - 1) return null
    return this.buffer.filter((e) => e.id > lastId)
  }
}
