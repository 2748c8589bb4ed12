/**
 * Group metadata for Baileys' `cachedGroupMetadata` (docs/baileys.md "Production settings"): without
 * it every message to a group makes the library query the group first (lib/Socket/messages-send.js
 * relayMessage), which WhatsApp rate-limits (WhiskeySockets/Baileys #1061, #795). The library only
 * reads this cache; it never fills it, so a miss is fetched here (one query shared by concurrent
 * sends) and kept. Group events keep it true: `groups.upsert` and `groups.update` merge what they
 * carry, `group-participants.update` drops the entry so the next send reads the members afresh.
 */
import type { LRUCache } from 'lru-cache'
import { boundedLru } from '../../lru'
import type { BaileysEventMap, GroupMetadata } from 'baileys'

export interface GroupMetadataCacheOptions {
  /** Groups kept. */
  max?: number
  /** How long an entry is trusted without an event (ms). */
  ttlMs?: number
}

export class GroupMetadataCache {
  private readonly cache: LRUCache<string, GroupMetadata>
  private readonly inFlight = new Map<string, Promise<GroupMetadata | undefined>>()

  /** `fetch` asks the server (the current socket's `groupMetadata`). */
  constructor(
    private readonly fetch: (jid: string) => Promise<GroupMetadata>,
    opts: GroupMetadataCacheOptions = {}
  ) {
    this.cache = boundedLru(opts.max ?? 1000, { ttl: opts.ttlMs ?? 60 * 60_000 })
  }

  /** The metadata of `jid`: cached, or fetched once; undefined when the fetch fails (the library then queries itself). */
  get(jid: string): Promise<GroupMetadata | undefined> {
    const hit = this.cache.get(jid)
    if (hit) return Promise.resolve(hit)
    let pending = this.inFlight.get(jid)
    if (!pending) {
      pending = this.fetch(jid)
        .then((meta) => {
          this.cache.set(jid, meta)
          return meta
        })
        .catch(() => undefined)
        .finally(() => this.inFlight.delete(jid))
      this.inFlight.set(jid, pending)
    }
    return pending
  }

  /** Keeps metadata the caller already has (e.g. read for an add-to-group check). */
  set(meta: GroupMetadata): void {
    this.cache.set(meta.id, meta)
  }

  /** `groups.upsert`: whole records. */
  upsert(groups: BaileysEventMap['groups.upsert']): void {
    for (const g of groups) this.cache.set(g.id, g)
  }

  /** `groups.update`: partial records merged into what is cached. */
  update(updates: BaileysEventMap['groups.update']): void {
    for (const u of updates) {
      const current = u.id ? this.cache.get(u.id) : undefined
      if (current) this.cache.set(current.id, { ...current, ...u, participants: u.participants ?? current.participants })
    }
  }

  /** `group-participants.update`: the member list changed; read it again on the next use. */
  participantsChanged(update: BaileysEventMap['group-participants.update']): void {
    this.cache.delete(update.id)
  }

  clear(): void {
    this.cache.clear()
  }
}
