/**
 * Named API keys with scopes for scripts (docs/design.md §21 "API keys"): shown once at creation, stored as a hash,
 * limited to some instances if wanted, revocable at once. Their last use (time and address) is kept,
 * written at most once a minute per key so a busy script does not turn every call into a write; the
 * audit log gets a `key_used` entry at most once an hour per key and address.
 */
import { timingSafeEqual } from 'node:crypto'
import { isoNow, type Clock } from '../../clock'
import type { ApiKeyRecord, Repositories, Stored } from '../../store/repos'
import { PERMISSIONS, type Caller } from '../../../shared/access'
import { invalid, notFound } from '../../errors'
import { keyIdOf, newApiKey, tokenHash } from './tokens'
import type { AuditService } from './audit-service'
import type { CoreEventBus } from '../../events'

const MARK_USED_EVERY_MS = 60_000
const AUDIT_USE_EVERY_MS = 3_600_000

export interface ApiKeyInput {
  name: string
  scopes: string[]
  /** Omitted or null: every instance. */
  instanceIds?: string[] | null
}

export class ApiKeyService {
  private readonly lastMarked = new Map<string, number>()
  private readonly lastAudited = new Map<string, number>()

  constructor(
    private readonly repos: Pick<Repositories, 'apiKeys' | 'instances'>,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly events: CoreEventBus
  ) {}

  /** Creates a key; answers its record and the key itself (the only time it is seen). 400 for an unknown scope or instance. */
  async create(input: ApiKeyInput): Promise<{ record: Stored<ApiKeyRecord>; key: string }> {
    const scopes = [...new Set(input.scopes)]
    if (scopes.length === 0) throw invalid('scopes', 'must name at least one scope')
    for (const s of scopes) if (!(PERMISSIONS as readonly string[]).includes(s)) throw invalid('scopes', `names an unknown scope ${s} (known: ${PERMISSIONS.join(', ')})`)
    for (const id of input.instanceIds ?? []) if (!this.repos.instances.find(id)) throw invalid('instance_ids', `names an unknown instance ${id}`)
    const { id, key } = newApiKey()
    const record = await this.repos.apiKeys.create({ id, name: input.name.trim(), scopes, instanceIds: input.instanceIds ?? null, createdAt: isoNow(this.clock) }, tokenHash(key))
    return { record, key }
  }

  list(): Promise<Stored<ApiKeyRecord>[]> {
    return this.repos.apiKeys.list()
  }

  /** Revokes a key: the next request with it is a 401, and its open event streams end. 404 for an unknown or already revoked key. */
  async revoke(id: string): Promise<void> {
    if (!(await this.repos.apiKeys.revoke(id, isoNow(this.clock)))) throw notFound('API key')
    this.events.emit('revoked', { kind: 'key', id })
  }

  /** The caller of an API key, or undefined when it is not a live key. */
  async authenticate(token: string, ip: string | null): Promise<Caller | undefined> {
    const id = keyIdOf(token)
    const found = id ? await this.repos.apiKeys.findWithHash(id) : undefined
    if (!found || found.key.revokedAt !== null) return undefined
    if (!timingSafeEqual(Buffer.from(tokenHash(token)), Buffer.from(found.hash))) return undefined
    await this.noteUse(found.key, ip)
    return { kind: 'key', id: found.key.id, name: found.key.name, scopes: found.key.scopes, instanceIds: found.key.instanceIds }
  }

  private async noteUse(key: Stored<ApiKeyRecord>, ip: string | null): Promise<void> {
    const now = this.clock.now()
    if (now - (this.lastMarked.get(key.id) ?? 0) >= MARK_USED_EVERY_MS) {
      this.lastMarked.set(key.id, now)
      await this.repos.apiKeys.markUsed(key.id, isoNow(this.clock), ip)
    }
    const auditKey = `${key.id} ${ip ?? ''}`
    if (now - (this.lastAudited.get(auditKey) ?? 0) >= AUDIT_USE_EVERY_MS) {
      this.lastAudited.set(auditKey, now)
      await this.audit.record('key_used', `key:${key.id}`, ip, { name: key.name })
    }
  }
}
