/**
 * The instance-limit rules of src/shared/access.ts (docs/design.md §21 "Instance limits"): which
 * callers may run account-wide operations, and what a caller may give a key or person it makes.
 */
import { describe, expect, it } from 'vitest'
import { mayGrant, mayReachAccount, ROLE_PERMISSIONS, type Caller } from '../../../src/shared/access'

const owner: Caller = { kind: 'owner', via: 'token' }
const key = (scopes: string[], instanceIds: string[] | null): Caller => ({ kind: 'key', id: 'k', name: 'k', scopes, instanceIds })
const staff = (role: 'manager' | 'agent', instanceIds: string[] | null): Caller => ({ kind: 'staff', id: 's', name: 's', role, instanceIds })

describe('account-wide operations', () => {
  it('need a caller without an instance limit, whatever it holds', () => {
    expect(mayReachAccount(owner, 'account')).toBe(true)
    expect(mayReachAccount(key(['admin'], null), 'account')).toBe(true)
    expect(mayReachAccount(key(['admin'], ['a']), 'account')).toBe(false)
    expect(mayReachAccount(staff('manager', ['a']), 'account')).toBe(false)
    expect(mayReachAccount(key(['admin'], []), 'account')).toBe(false)
  })
  it('a limited caller still runs what reaches its instances or nothing of any', () => {
    for (const reach of ['reachable', 'shared'] as const) expect(mayReachAccount(key(['admin'], ['a']), reach)).toBe(true)
  })
})

describe('no key or person wider than its maker', () => {
  it('the owner and an unlimited admin key give anything', () => {
    expect(mayGrant(owner, ['admin'], null)).toBe(true)
    expect(mayGrant(key(['admin'], null), ['admin'], null)).toBe(true)
  })
  it('scopes within the maker’s permissions (a write grants its read)', () => {
    expect(mayGrant(key(['contacts:write'], null), ['contacts:read'], null)).toBe(true)
    expect(mayGrant(key(['contacts:read'], null), ['contacts:write'], null)).toBe(false)
    expect(mayGrant(staff('manager', null), ['admin'], null)).toBe(false)
    expect(mayGrant(staff('manager', null), ROLE_PERMISSIONS.agent, null)).toBe(true)
  })
  it('instances within the maker’s own; none named (every instance) is wider than a limit', () => {
    const limited = key(['admin'], ['a', 'b'])
    expect(mayGrant(limited, ['messages:read'], ['a'])).toBe(true)
    expect(mayGrant(limited, ['messages:read'], ['a', 'c'])).toBe(false)
    expect(mayGrant(limited, ['messages:read'], null)).toBe(false)
    expect(mayGrant(limited, ['messages:read'], undefined)).toBe(true)
  })
  it('an unknown scope is left to the service’s 400', () => {
    expect(mayGrant(key(['contacts:read'], null), ['no-such-scope'], null)).toBe(true)
  })
})
