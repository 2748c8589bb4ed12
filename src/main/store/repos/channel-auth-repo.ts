/**
 * A channel's credentials, per instance: the pairing document (`auth_creds`: Baileys' creds, or the
 * sandbox's pairing) and the Signal key store (`auth_keys`: one row per key, `type` as Baileys names
 * it — `session`, `pre-key`, `sender-key`, `app-state-sync-key`, `lid-mapping`, …). Values are JSON
 * text the channel encodes (BufferJSON for Baileys); this repository never looks inside them.
 *
 * The rule it keeps: one call of {@link ChannelAuthRepo.applyKeys} is one write, so a key transaction
 * of the library (a new session together with the pre-key it consumed) is stored whole or not at all.
 *
 * Fencing (docs/storage.md "Leases and fencing tokens"): every write takes an optional
 * {@link Fence}, the worker and the fencing token of its lease on the instance. With one, the write's
 * transaction first checks that the lease is still that worker's with that token ({@link checkFence}:
 * `SELECT … FOR UPDATE` on PostgreSQL) and throws StaleLeaseError without writing anything when it is
 * not: a worker whose instance was taken over can never overwrite the new owner's credentials or keys.
 * Without one (the desktop app, a single `npm run serve`) nothing is checked. In database mode the
 * session manager wraps this repository so that every write of a session carries its lease's fence.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema'
import type { Exec } from './exec'
import { checkFence, type Fence } from './lease-repo'
import { timeToMs } from '../db/times'
import { chunks } from './in-lists'

/** One key to store (`value`: JSON text) or to delete (`value: null`). */
export interface AuthKeyChange {
  type: string
  id: string
  value: string | null
}

export class ChannelAuthRepo {
  constructor(private readonly x: Exec) {}

  /** Runs `work` as one write, after checking `fence` in the same transaction when one is given. */
  private fenced<T>(instanceId: string, fence: Fence | undefined, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.x.write(async (trx) => {
      if (fence) await checkFence(trx, instanceId, fence)
      return work(trx)
    })
  }

  /** The instance's saved credentials (JSON text), or undefined when it has none. */
  async creds(instanceId: string): Promise<string | undefined> {
    const row = await this.x.db.selectFrom('auth_creds').select('creds').where('instance_id', '=', instanceId).executeTakeFirst()
    return row?.creds
  }

  /** True when the instance has saved credentials or keys (diagnostics, tests). */
  async has(instanceId: string): Promise<boolean> {
    const creds = await this.x.db.selectFrom('auth_creds').select('instance_id').where('instance_id', '=', instanceId).executeTakeFirst()
    if (creds) return true
    const key = await this.x.db.selectFrom('auth_keys').select('id').where('instance_id', '=', instanceId).limit(1).executeTakeFirst()
    return key !== undefined
  }

  /**
   * Stores the instance's credentials (JSON text), replacing earlier ones; `at` is ISO 8601. With a
   * `fence`, throws StaleLeaseError (nothing written) unless the lease is still the fence's.
   */
  async saveCreds(instanceId: string, creds: string, at: string, fence?: Fence): Promise<void> {
    await this.fenced(instanceId, fence, (trx) =>
      trx
        .insertInto('auth_creds')
        .values({ instance_id: instanceId, creds, updated_at: timeToMs(at) })
        .onConflict((oc) => oc.column('instance_id').doUpdateSet({ creds, updated_at: timeToMs(at) }))
        .execute()
    )
  }

  /** The stored values (JSON text) of keys `ids` of `type`; ids without a key are left out. */
  async keys(instanceId: string, type: string, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    for (const part of chunks([...new Set(ids)])) {
      const rows = await this.x.db.selectFrom('auth_keys').select(['id', 'value']).where('instance_id', '=', instanceId).where('type', '=', type).where('id', 'in', part).execute()
      for (const r of rows) out.set(r.id, r.value)
    }
    return out
  }

  /** The ids of the instance's keys of `type` (e.g. every group's `sender-key-memory`), in no particular order. */
  async keyIds(instanceId: string, type: string): Promise<string[]> {
    const rows = await this.x.db.selectFrom('auth_keys').select('id').where('instance_id', '=', instanceId).where('type', '=', type).execute()
    return rows.map((r) => r.id)
  }

  /**
   * Stores and deletes keys in ONE transaction: every change is stored, or none (the error, e.g.
   * StorageFullError, reaches the caller and the previous keys stay whole). A (type, id) should
   * appear once; if it appears twice, the last change wins. With a `fence`, throws StaleLeaseError
   * (nothing written) unless the lease is still the fence's.
   */
  async applyKeys(instanceId: string, changes: readonly AuthKeyChange[], fence?: Fence): Promise<void> {
    const last = new Map<string, AuthKeyChange>()
    for (const c of changes) last.set(`${c.type}\u0000${c.id}`, c)
    const puts: Array<{ instance_id: string; type: string; id: string; value: string }> = []
    const deletes = new Map<string, string[]>()
    for (const c of last.values()) {
      if (c.value === null) {
        const ids = deletes.get(c.type) ?? []
        ids.push(c.id)
        deletes.set(c.type, ids)
      } else {
        puts.push({ instance_id: instanceId, type: c.type, id: c.id, value: c.value })
      }
    }
    if (puts.length === 0 && deletes.size === 0) return
    await this.fenced(instanceId, fence, async (trx) => {
      for (const part of chunks(puts)) {
        await trx
          .insertInto('auth_keys')
          .values(part)
          .onConflict((oc) => oc.columns(['instance_id', 'type', 'id']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
          .execute()
      }
      for (const [type, ids] of deletes) {
        for (const part of chunks(ids)) {
          await trx.deleteFrom('auth_keys').where('instance_id', '=', instanceId).where('type', '=', type).where('id', 'in', part).execute()
        }
      }
    })
  }

  /** Deletes every key of the instance (its credentials stay). With a `fence`: as {@link saveCreds}. */
  async clearKeys(instanceId: string, fence?: Fence): Promise<void> {
    await this.fenced(instanceId, fence, (trx) => trx.deleteFrom('auth_keys').where('instance_id', '=', instanceId).execute())
  }

  /** Number of stored keys of the instance, of `type` when given (diagnostics, tests). */
  async countKeys(instanceId: string, type?: string): Promise<number> {
    let q = this.x.db.selectFrom('auth_keys').select((eb) => eb.fn.countAll<number>().as('n')).where('instance_id', '=', instanceId)
    if (type !== undefined) q = q.where('type', '=', type)
    const row = await q.executeTakeFirstOrThrow()
    return Number(row.n)
  }

  /**
   * Deletes the instance's credentials and keys in one transaction (logout, delete). With a `fence`:
   * as {@link saveCreds} (a stale owner's logout must not unlink the new owner's device).
   */
  async remove(instanceId: string, fence?: Fence): Promise<void> {
    await this.fenced(instanceId, fence, async (trx) => {
      await trx.deleteFrom('auth_keys').where('instance_id', '=', instanceId).execute()
      await trx.deleteFrom('auth_creds').where('instance_id', '=', instanceId).execute()
    })
  }
}
