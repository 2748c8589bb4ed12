/**
 * Reads the webhook outbox of release 0.1 (`webhook-outbox.jsonl`) with the rules of 0.1's
 * `src/main/webhooks/outbox.ts` (commit 9aeed71, `readOutboxFile`), never writing:
 *
 * - `{"put": delivery}` adds a delivery or replaces it whole;
 * - `{"set": id, "fields": {…}}` changes fields of a delivery (none with that id: ignored);
 * - `{"drop": instanceId}` forgets a deleted instance's deliveries;
 * - the part after the last newline is a torn append and is left out; any other unreadable line
 *   stops the read;
 * - the bounds 0.1 applied on reading: per instance, the newest 50 delivered and 500 failed
 *   deliveries stay (older ones were forgotten); pending ones all stay.
 */
import type { WebhookDelivery } from '../../../shared/schemas/webhooks'
import { DataFileError } from '../config/durable-json-file'
import { readTextIfExists } from './read-text'

/** 0.1's defaults (`DEFAULT_OUTBOX_LIMITS`); the app never changed them. */
const KEEP_DELIVERED = 50
const MAX_FAILED = 500

type Line = { put: WebhookDelivery } | { set: string; fields: Partial<WebhookDelivery> } | { drop: string }

/**
 * The deliveries in `file` as a 0.1 start read them, in creation order (missing file: none).
 * Throws DataFileError naming the file when it cannot be read or a whole line does not parse.
 */
export async function readWebhookOutbox(file: string): Promise<WebhookDelivery[]> {
  const text = await readTextIfExists(file)
  if (text === null) return []
  const state = new OutboxState()
  const lines = text.split('\n')
  for (let i = 0; i < lines.length - 1; i++) {
    const raw = lines[i]!
    if (!raw) continue
    let line: Line
    try {
      line = JSON.parse(raw) as Line
      if (!line || typeof line !== 'object') throw new Error('not an outbox line')
    } catch (err) {
      throw new DataFileError(file, new Error(`line ${i + 1}: ${err instanceof Error ? err.message : String(err)}`))
    }
    state.apply(line)
  }
  return [...state.byId.values()]
}

/** The outbox as 0.1 kept it in memory: deliveries by id (creation order) and the finished ones per instance, oldest first. */
class OutboxState {
  readonly byId = new Map<string, WebhookDelivery>()
  private readonly finished = new Map<string, { delivered: Set<string>; failed: Set<string> }>()

  apply(line: Line): void {
    if ('put' in line) this.put(line.put)
    else if ('set' in line) {
      const d = this.byId.get(line.set)
      if (d) this.put({ ...d, ...line.fields })
    } else if ('drop' in line) {
      for (const d of [...this.byId.values()]) if (d.instance_id === line.drop) this.remove(d)
      this.finished.delete(line.drop)
    }
  }

  private put(d: WebhookDelivery): void {
    const before = this.byId.get(d.id)
    if (before) this.unindex(before)
    this.byId.set(d.id, d)
    if (d.status === 'pending') return
    let fin = this.finished.get(d.instance_id)
    if (!fin) this.finished.set(d.instance_id, (fin = { delivered: new Set(), failed: new Set() }))
    const set = d.status === 'delivered' ? fin.delivered : fin.failed
    set.add(d.id)
    const keep = d.status === 'delivered' ? KEEP_DELIVERED : MAX_FAILED
    while (set.size > keep) {
      const oldest = set.values().next().value!
      set.delete(oldest)
      this.byId.delete(oldest)
    }
  }

  private remove(d: WebhookDelivery): void {
    this.unindex(d)
    this.byId.delete(d.id)
  }

  private unindex(d: WebhookDelivery): void {
    const fin = this.finished.get(d.instance_id)
    fin?.delivered.delete(d.id)
    fin?.failed.delete(d.id)
  }
}
