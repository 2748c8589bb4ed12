/**
 * Staff accounts (docs/design.md §21 "Staff"): the owner creates a person with a role and the instances they work
 * on; the person sets a password through a one-time invite link; logging in makes a web session.
 *
 * Rules: what is guessed is counted, per login name (a name no one has too, alike), never per
 * address: behind a proxy or on one machine everyone shares one. Logins are unique and case-insensitive; an invite is good once, for {@link INVITE_TTL_MS};
 * a password has at least 10 characters and is not blank (the shared rule,
 * src/shared/domain/password-rule.ts); after {@link LOCK_AFTER_FAILURES}
 * wrong passwords in a row the account refuses logins for {@link LOCK_MS} (429 with the wait), right
 * password or not (OWASP Authentication Cheat Sheet, "Account lockout"); a session lasts
 * {@link SESSION_TTL_MS} unless ended earlier ("sign out", "sign out everywhere", deletion).
 */
import { isoNow, type Clock } from '../../clock'
import { newObjectId, newSecret } from '../../ids'
import type { Repositories, StaffMember, Stored } from '../../store/repos'
import type { Caller, StaffRoleName } from '../../../shared/access'
import { AppError, invalid, notFound, RetryLaterError } from '../../errors'
import { hashPassword, verifyPassword } from './passwords'
import { newPasswordProblem } from '../../../shared/domain/password-rule'
import { newSessionToken, tokenHash } from './tokens'
import type { AuditService } from './audit-service'
import type { CoreEventBus } from '../../events'
import { AuthThrottle } from '../auth-throttle'

export const INVITE_TTL_MS = 72 * 3_600_000
export const SESSION_TTL_MS = 7 * 86_400_000
export const LOCK_AFTER_FAILURES = 5
export const LOCK_MS = 15 * 60_000

export interface StaffInput {
  name: string
  login: string
  role: StaffRoleName
  /** The instances they work on; omitted or null: every instance. */
  instanceIds?: string[] | null
}

/** A new web session: the bearer token (also the cookie's value) and the CSRF token writes echo. */
export interface NewSession {
  token: string
  csrfToken: string
  /** Epoch ms. */
  expiresAt: number
  member: Stored<StaffMember>
}

/** A staff member as a caller. */
export function staffCaller(m: Stored<StaffMember>): Caller {
  return { kind: 'staff', id: m.id, name: m.name, role: m.role, instanceIds: m.instanceIds }
}

export class StaffService {
  /**
   * Wrong passwords for login names no one has, counted like a real account's so that the answers
   * (401, then 429) do not tell which logins exist. In memory: a worker's own count.
   */
  private readonly unknownLogins: AuthThrottle

  constructor(
    private readonly repos: Pick<Repositories, 'staff' | 'invites' | 'sessions' | 'instances'>,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    /** Where ended sessions are announced (their event streams end). */
    private readonly events: CoreEventBus,
    /** scrypt's cost, log2(N) (tests pass a small one). */
    private readonly scryptLog2n?: number
  ) {
    this.unknownLogins = new AuthThrottle(clock, { maxFailures: LOCK_AFTER_FAILURES, windowMs: LOCK_MS })
  }

  list(): Promise<Stored<StaffMember>[]> {
    return this.repos.staff.list()
  }

  async get(id: string): Promise<Stored<StaffMember>> {
    const m = await this.repos.staff.find(id)
    if (!m) throw notFound('Staff member')
    return m
  }

  /** Creates a member and their invite; answers the member and the invite's one-time code. 409 for a taken login. */
  async create(input: StaffInput): Promise<{ member: Stored<StaffMember>; code: string }> {
    const login = this.normalLogin(input.login)
    this.checkInstances(input.instanceIds)
    if (await this.repos.staff.credentials(login)) throw new AppError('CONFLICT', `The login ${login} is taken.`)
    const now = isoNow(this.clock)
    const member = await this.repos.staff.create({ id: newObjectId(), name: input.name.trim(), login, role: input.role, instanceIds: input.instanceIds ?? null, createdAt: now, updatedAt: now })
    return { member, code: await this.invite(member.id) }
  }

  /** A new invite code for the member (an earlier link stops working). */
  async invite(id: string): Promise<string> {
    await this.get(id)
    const code = newSecret(24)
    await this.repos.invites.put(id, tokenHash(code), this.clock.now() + INVITE_TTL_MS)
    return code
  }

  async update(id: string, change: { name?: string; role?: StaffRoleName; instanceIds?: string[] | null }): Promise<Stored<StaffMember>> {
    this.checkInstances(change.instanceIds)
    const m = await this.repos.staff.update(id, { ...change, name: change.name?.trim() }, isoNow(this.clock))
    if (!m) throw notFound('Staff member')
    // Open event streams carry what the person could see when they opened: they reopen with the new rights.
    if (change.role !== undefined || change.instanceIds !== undefined) this.events.emit('revoked', { kind: 'staff', id })
    return m
  }

  /** Deletes the member; their sessions end at once and their chats are unassigned. */
  async remove(id: string): Promise<void> {
    if (!(await this.repos.staff.remove(id))) throw notFound('Staff member')
    this.events.emit('revoked', { kind: 'staff', id })
  }

  /** Sets the password of the invite's member; 401 for an unknown, used or expired code. */
  async acceptInvite(code: string, password: string): Promise<Stored<StaffMember>> {
    this.checkPassword(password)
    const id = await this.repos.invites.redeem(tokenHash(code), this.clock.now())
    const member = id ? await this.repos.staff.find(id) : undefined
    if (!member) throw new AppError('UNAUTHORIZED', 'This invite link was used already or has expired; ask the owner for a new one.')
    await this.repos.staff.setPassword(member.id, await hashPassword(password, this.scryptLog2n), isoNow(this.clock))
    await this.audit.record('change', `staff:${member.id}`, null, { operation: 'auth.acceptInvite' })
    return (await this.repos.staff.find(member.id))!
  }

  /**
   * Checks a login and starts a session. 401 for a wrong login or password (the same answer for both);
   * 429 with the seconds to wait while the account is locked. Every attempt goes into the audit log.
   */
  async login(loginName: string, password: string, ip: string | null): Promise<NewSession> {
    try {
      const session = await this.checkLogin(loginName.trim().toLowerCase(), password, ip)
      await this.audit.record('login', `staff:${session.member.id}`, ip)
      return session
    } catch (err) {
      await this.audit.record('login_failed', loginName.trim().toLowerCase().slice(0, 64), ip, { reason: (err as AppError).code === 'TOO_MANY_REQUESTS' ? 'locked' : 'wrong' })
      throw err
    }
  }

  private async checkLogin(loginName: string, password: string, ip: string | null): Promise<NewSession> {
    const creds = await this.repos.staff.credentials(loginName)
    const now = this.clock.now()
    if (creds?.lockedUntil && creds.lockedUntil > now) throw lockedError(creds.lockedUntil - now)
    const unknownWait = creds ? null : this.unknownLogins.blockedFor(loginName)
    if (unknownWait !== null) throw lockedError(unknownWait * 1000)
    // An unknown login costs a hash too, so timing does not tell which logins exist.
    const ok = creds?.passwordHash ? await verifyPassword(password, creds.passwordHash) : (await hashPassword(password, this.scryptLog2n), false)
    if (!creds || !ok) {
      if (creds) {
        const lock = creds.failedLogins + 1 >= LOCK_AFTER_FAILURES ? now + LOCK_MS : null
        await this.repos.staff.loginOutcome(creds.member.id, { ok: false, lockUntil: lock })
        if (lock) throw lockedError(LOCK_MS)
      } else {
        this.unknownLogins.fail(loginName)
        if (this.unknownLogins.blockedFor(loginName) !== null) throw lockedError(LOCK_MS)
      }
      throw new AppError('UNAUTHORIZED', 'Wrong login or password.')
    }
    await this.repos.staff.loginOutcome(creds.member.id, { ok: true })
    const token = newSessionToken()
    const session = { staffId: creds.member.id, csrfToken: newSecret(18), expiresAt: now + SESSION_TTL_MS }
    await this.repos.sessions.create(tokenHash(token), { ...session, createdAt: now, ip })
    return { token, csrfToken: session.csrfToken, expiresAt: session.expiresAt, member: creds.member }
  }

  /** The caller and CSRF token of a session token, or undefined when it is unknown, ended or expired. */
  async session(token: string): Promise<{ caller: Caller; csrfToken: string; member: Stored<StaffMember> } | undefined> {
    const s = await this.repos.sessions.findWithMember(tokenHash(token))
    if (!s || s.expiresAt <= this.clock.now()) return undefined
    return { caller: staffCaller(s.member), csrfToken: s.csrfToken, member: s.member }
  }

  /** Ends one session, or every session of its member (`everywhere`); answers how many ended. */
  async logout(token: string, everywhere = false, ip: string | null = null): Promise<number> {
    const s = await this.repos.sessions.find(tokenHash(token))
    if (!s) return 0
    const ended = everywhere ? await this.repos.sessions.removeAllOf(s.staffId) : (await this.repos.sessions.remove(tokenHash(token)), 1)
    this.events.emit('revoked', everywhere ? { kind: 'staff', id: s.staffId } : { kind: 'session', id: tokenHash(token) })
    await this.audit.record('logout', `staff:${s.staffId}`, ip, everywhere ? { everywhere: true } : null)
    return ended
  }

  /** Ends every session of a member; answers how many ended. */
  async signOutEverywhere(id: string): Promise<number> {
    await this.get(id)
    const ended = await this.repos.sessions.removeAllOf(id)
    this.events.emit('revoked', { kind: 'staff', id })
    return ended
  }

  /** Deletes expired sessions (the daily run). */
  purgeExpired(): Promise<void> {
    return this.repos.sessions.purgeExpired(this.clock.now())
  }

  private normalLogin(login: string): string {
    const l = login.trim().toLowerCase()
    if (!/^[a-z0-9._@-]{2,64}$/.test(l)) throw invalid('login', 'must be 2–64 letters, digits or . _ @ -')
    return l
  }

  private checkPassword(password: string): void {
    const problem = newPasswordProblem(password)
    if (problem) throw invalid('password', problem)
  }

  private checkInstances(ids: readonly string[] | null | undefined): void {
    for (const id of ids ?? []) if (!this.repos.instances.find(id)) throw invalid('instance_ids', `names an unknown instance ${id}`)
  }
}

function lockedError(waitMs: number): RetryLaterError {
  const s = Math.max(1, Math.ceil(waitMs / 1000))
  return new RetryLaterError(`Too many wrong passwords for this account; try again in ${s} s.`, s)
}
