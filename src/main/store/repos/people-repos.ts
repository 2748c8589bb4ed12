/**
 * The people at the desk (docs/design.md §21): staff accounts, their invites and web sessions, scoped API keys
 * and the audit log. Tokens arrive here already hashed (the services hash them): nothing in these
 * tables can be replayed as a credential.
 */
import type { Exec } from './exec'
import { fromJson, toJson } from './exec'
import type { Selectable } from 'kysely'
import type { ApiKeysTable, AuditLogTable, StaffTable } from '../db/schema'
import type { Stored } from './record-table'
import { msToTime, msToTimeOrNull, timeToMs } from '../db/times'

export type StaffRole = StaffTable['role']

/** A staff account as services see it (no password hash). */
export interface StaffMember {
  id: string
  name: string
  login: string
  role: StaffRole
  /** null: every instance. */
  instanceIds: string[] | null
  /** False until the invite was accepted (no password yet). */
  active: boolean
  createdAt: string
  updatedAt: string
}

/** What login needs besides the member: the hash and the lockout state. */
export interface StaffCredentials {
  member: Stored<StaffMember>
  passwordHash: string | null
  failedLogins: number
  lockedUntil: number | null
}

function staffFromRow(r: StaffTable): Stored<StaffMember> {
  return Object.freeze({
    id: r.id,
    name: r.name,
    login: r.login,
    role: r.role,
    instanceIds: r.instance_ids === null ? null : fromJson<string[]>(r.instance_ids),
    active: r.password_hash !== null,
    createdAt: msToTime(r.created_at),
    updatedAt: msToTime(r.updated_at)
  })
}

export class StaffRepo {
  constructor(private readonly x: Exec) {}

  async list(): Promise<Stored<StaffMember>[]> {
    return (await this.x.db.selectFrom('staff').selectAll().orderBy('name').orderBy('id').execute()).map(staffFromRow)
  }

  async find(id: string): Promise<Stored<StaffMember> | undefined> {
    const row = await this.x.db.selectFrom('staff').selectAll().where('id', '=', id).executeTakeFirst()
    return row ? staffFromRow(row) : undefined
  }

  /** The member with `login` (already lower-cased) and what a login checks. */
  async credentials(login: string): Promise<StaffCredentials | undefined> {
    const row = await this.x.db.selectFrom('staff').selectAll().where('login', '=', login).executeTakeFirst()
    return row ? { member: staffFromRow(row), passwordHash: row.password_hash, failedLogins: row.failed_logins, lockedUntil: row.locked_until } : undefined
  }

  /** Stores a new member (no password yet). A taken login is the unique constraint's error. */
  async create(m: Omit<StaffMember, 'active'>): Promise<Stored<StaffMember>> {
    await this.x.write((trx) =>
      trx
        .insertInto('staff')
        .values({ id: m.id, name: m.name, login: m.login, role: m.role, instance_ids: m.instanceIds === null ? null : toJson(m.instanceIds), password_hash: null, failed_logins: 0, locked_until: null, created_at: timeToMs(m.createdAt), updated_at: timeToMs(m.updatedAt) })
        .execute()
    )
    return Object.freeze({ ...m, active: false })
  }

  /** Changes name, role or instances; undefined when there is no such member. */
  async update(id: string, change: { name?: string; role?: StaffRole; instanceIds?: string[] | null }, updatedAt: string): Promise<Stored<StaffMember> | undefined> {
    return this.x.write(async (trx) => {
      const set: Partial<StaffTable> = { updated_at: timeToMs(updatedAt) }
      if (change.name !== undefined) set.name = change.name
      if (change.role !== undefined) set.role = change.role
      if (change.instanceIds !== undefined) set.instance_ids = change.instanceIds === null ? null : toJson(change.instanceIds)
      await trx.updateTable('staff').set(set).where('id', '=', id).execute()
      const row = await trx.selectFrom('staff').selectAll().where('id', '=', id).executeTakeFirst()
      return row ? staffFromRow(row) : undefined
    })
  }

  /** Removes a member with their invites and sessions (foreign keys cascade) and unassigns their chats. */
  async remove(id: string): Promise<boolean> {
    return this.x.write(async (trx) => {
      await trx.updateTable('conversations').set({ assigned_to: null, assigned_at: null }).where('assigned_to', '=', id).execute()
      const res = await trx.deleteFrom('staff').where('id', '=', id).executeTakeFirst()
      return Number(res.numDeletedRows) > 0
    })
  }

  /** Sets the password hash (an accepted invite or a reset) and clears the lockout. */
  async setPassword(id: string, hash: string, updatedAt: string): Promise<void> {
    await this.x.write((trx) => trx.updateTable('staff').set({ password_hash: hash, failed_logins: 0, locked_until: null, updated_at: timeToMs(updatedAt) }).where('id', '=', id).execute())
  }

  /** Records a login's outcome: a good one clears the count; a failed one counts and may lock until `lockUntil`. */
  async loginOutcome(id: string, outcome: { ok: true } | { ok: false; lockUntil: number | null }): Promise<void> {
    await this.x.write(async (trx) => {
      if (outcome.ok) await trx.updateTable('staff').set({ failed_logins: 0, locked_until: null }).where('id', '=', id).execute()
      else await trx.updateTable('staff').set((eb) => ({ failed_logins: eb('failed_logins', '+', 1), locked_until: outcome.lockUntil })).where('id', '=', id).execute()
    })
  }
}

export class InviteRepo {
  constructor(private readonly x: Exec) {}

  /** Replaces the member's invite (an earlier link stops working). */
  async put(staffId: string, codeHash: string, expiresAt: number): Promise<void> {
    await this.x.write(async (trx) => {
      await trx.deleteFrom('staff_invites').where('staff_id', '=', staffId).execute()
      await trx.insertInto('staff_invites').values({ code_hash: codeHash, staff_id: staffId, expires_at: expiresAt }).execute()
    })
  }

  /** Uses up the invite of `codeHash`: answers its member's id when it was good at `now`, and deletes it either way. */
  async redeem(codeHash: string, now: number): Promise<string | undefined> {
    return this.x.write(async (trx) => {
      const row = await trx.selectFrom('staff_invites').selectAll().where('code_hash', '=', codeHash).executeTakeFirst()
      if (!row) return undefined
      await trx.deleteFrom('staff_invites').where('code_hash', '=', codeHash).execute()
      return row.expires_at > now ? row.staff_id : undefined
    })
  }
}

/** A web session's row as the authenticator needs it. */
export interface SessionRecord {
  staffId: string
  csrfToken: string
  expiresAt: number
}

export class SessionRepo {
  constructor(private readonly x: Exec) {}

  async create(tokenHash: string, s: SessionRecord & { createdAt: number; ip: string | null }): Promise<void> {
    await this.x.write((trx) => trx.insertInto('auth_sessions').values({ token_hash: tokenHash, staff_id: s.staffId, csrf_token: s.csrfToken, created_at: s.createdAt, expires_at: s.expiresAt, ip: s.ip }).execute())
  }

  async find(tokenHash: string): Promise<SessionRecord | undefined> {
    const row = await this.x.db.selectFrom('auth_sessions').select(['staff_id', 'csrf_token', 'expires_at']).where('token_hash', '=', tokenHash).executeTakeFirst()
    return row ? { staffId: row.staff_id, csrfToken: row.csrf_token, expiresAt: row.expires_at } : undefined
  }

  /**
   * The session of `tokenHash` with its member, in one query (every request of a signed-in person
   * asks): undefined when there is no such session.
   */
  async findWithMember(tokenHash: string): Promise<(SessionRecord & { member: Stored<StaffMember> }) | undefined> {
    const row = await this.x.db
      .selectFrom('auth_sessions as s')
      .innerJoin('staff as m', 'm.id', 's.staff_id')
      .selectAll('m')
      .select(['s.csrf_token', 's.expires_at'])
      .where('s.token_hash', '=', tokenHash)
      .executeTakeFirst()
    if (!row) return undefined
    const { csrf_token, expires_at, ...member } = row
    return { staffId: member.id, csrfToken: csrf_token, expiresAt: expires_at, member: staffFromRow(member) }
  }

  async remove(tokenHash: string): Promise<void> {
    await this.x.write((trx) => trx.deleteFrom('auth_sessions').where('token_hash', '=', tokenHash).execute())
  }

  /** Ends every session of a member ("sign out everywhere"); answers how many. */
  async removeAllOf(staffId: string): Promise<number> {
    return this.x.write(async (trx) => Number((await trx.deleteFrom('auth_sessions').where('staff_id', '=', staffId).executeTakeFirst()).numDeletedRows))
  }

  /** Staff with a session still good at `now` (signed in somewhere). */
  async signedIn(now: number): Promise<string[]> {
    const rows = await this.x.db.selectFrom('auth_sessions').select('staff_id').distinct().where('expires_at', '>', now).execute()
    return rows.map((r) => r.staff_id)
  }

  /** Deletes sessions expired at `now`. */
  async purgeExpired(now: number): Promise<void> {
    await this.x.write((trx) => trx.deleteFrom('auth_sessions').where('expires_at', '<=', now).execute())
  }
}

/** An API key as the owner sees it (never the key). */
export interface ApiKeyRecord {
  id: string
  name: string
  scopes: string[]
  /** null: every instance. */
  instanceIds: string[] | null
  createdAt: string
  lastUsedAt: string | null
  lastUsedIp: string | null
  revokedAt: string | null
}

function keyFromRow(r: ApiKeysTable): Stored<ApiKeyRecord> {
  return Object.freeze({
    id: r.id,
    name: r.name,
    scopes: fromJson<string[]>(r.scopes),
    instanceIds: r.instance_ids === null ? null : fromJson<string[]>(r.instance_ids),
    createdAt: msToTime(r.created_at),
    lastUsedAt: msToTimeOrNull(r.last_used_at),
    lastUsedIp: r.last_used_ip,
    revokedAt: msToTimeOrNull(r.revoked_at)
  })
}

export class ApiKeyRepo {
  constructor(private readonly x: Exec) {}

  async create(k: Omit<ApiKeyRecord, 'lastUsedAt' | 'lastUsedIp' | 'revokedAt'>, keyHash: string): Promise<Stored<ApiKeyRecord>> {
    await this.x.write((trx) =>
      trx
        .insertInto('api_keys')
        .values({ id: k.id, name: k.name, key_hash: keyHash, scopes: toJson(k.scopes), instance_ids: k.instanceIds === null ? null : toJson(k.instanceIds), created_at: timeToMs(k.createdAt), last_used_at: null, last_used_ip: null, revoked_at: null })
        .execute()
    )
    return Object.freeze({ ...k, lastUsedAt: null, lastUsedIp: null, revokedAt: null })
  }

  /** Every key, revoked ones too, newest first. */
  async list(): Promise<Stored<ApiKeyRecord>[]> {
    return (await this.x.db.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').orderBy('id').execute()).map(keyFromRow)
  }

  /** The key `id` with its hash, for a constant-time check. */
  async findWithHash(id: string): Promise<{ key: Stored<ApiKeyRecord>; hash: string } | undefined> {
    const row = await this.x.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst()
    return row ? { key: keyFromRow(row), hash: row.key_hash } : undefined
  }

  /** Marks the key revoked at `at`; false when there is no such key or it was revoked already. */
  async revoke(id: string, at: string): Promise<boolean> {
    return this.x.write(async (trx) => Number((await trx.updateTable('api_keys').set({ revoked_at: timeToMs(at) }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst()).numUpdatedRows) > 0)
  }

  async markUsed(id: string, at: string, ip: string | null): Promise<void> {
    await this.x.write((trx) => trx.updateTable('api_keys').set({ last_used_at: timeToMs(at), last_used_ip: ip }).where('id', '=', id).execute())
  }
}

/** One audit entry. */
export interface AuditEntry {
  seq: number
  /** Epoch ms. */
  at: number
  kind: string
  actor: string
  ip: string | null
  detail: Record<string, unknown> | null
}

function auditFromRow(r: Selectable<AuditLogTable>): AuditEntry {
  return { seq: r.seq, at: r.at, kind: r.kind, actor: r.actor, ip: r.ip, detail: r.detail === null ? null : fromJson<Record<string, unknown>>(r.detail) }
}

export class AuditRepo {
  constructor(private readonly x: Exec) {}

  async add(e: Omit<AuditEntry, 'seq'>): Promise<void> {
    await this.x.write((trx) => trx.insertInto('audit_log').values({ at: e.at, kind: e.kind, actor: e.actor, ip: e.ip, detail: e.detail === null ? null : toJson(e.detail) }).execute())
  }

  /** Entries newest first, before the cursor `beforeSeq` when given, at most `limit`, of `kind` when given. */
  async list(opts: { limit: number; beforeSeq?: number; kind?: string }): Promise<AuditEntry[]> {
    let q = this.x.db.selectFrom('audit_log').selectAll()
    if (opts.beforeSeq !== undefined) q = q.where('seq', '<', opts.beforeSeq)
    if (opts.kind) q = q.where('kind', '=', opts.kind)
    return (await q.orderBy('seq', 'desc').limit(opts.limit).execute()).map(auditFromRow)
  }

  /** Deletes entries older than `before` (epoch ms); answers how many (the history's retention rule). */
  async purgeBefore(before: number): Promise<number> {
    return this.x.write(async (trx) => Number((await trx.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst()).numDeletedRows))
  }
}
