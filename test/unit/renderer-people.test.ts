/** Pure renderer logic of issues 26 and 27: which tabs a role sees, the assign menu, the sign-in words, the People tab's texts, who sent a message, the workers. */
import { describe, expect, it } from 'vitest'
import { initialAssignedFilter, mayCall, openingTab, visibleTabs } from '../../src/renderer/src/access'
import { initialsOf } from '../../src/renderer/src/components/AccountMenu'
import { isMine, senderLabel } from '../../src/renderer/src/components/sender-label'
import { pauseReason } from '../../src/renderer/src/tabs/messages/handoff-text'
import { isCluster, workerLine, workerSummary } from '../../src/renderer/src/tabs/cluster/cluster-text'
import { newPasswordProblem, signInRefusal } from '../../src/renderer/src/sign-in-text'
import { assignChoices, timelineText } from '../../src/renderer/src/tabs/messages/assignment'
import { auditWhat, auditWho, instanceIdsOf, instancesText } from '../../src/renderer/src/tabs/people/people-text'
import type { TabId } from '../../src/renderer/src/tabs/tab-props'
import { ROLE_PERMISSIONS } from '../../src/shared/access'

const ALL_TABS: TabId[] = ['instances', 'pairing', 'settings', 'intents', 'surveys', 'messages', 'contacts', 'outreach', 'testchat', 'api', 'people']
const as = (role: 'owner' | 'manager' | 'agent') => ({ permissions: [...ROLE_PERMISSIONS[role]] })

describe('what a role is offered', () => {
  it('shows the owner every tab, a manager all but API and People, an agent the Inbox and Contacts only', () => {
    expect(visibleTabs(as('owner'), ALL_TABS)).toEqual(ALL_TABS)
    expect(visibleTabs(as('manager'), ALL_TABS)).toEqual(['instances', 'pairing', 'settings', 'intents', 'surveys', 'messages', 'contacts', 'outreach', 'testchat'])
    expect(visibleTabs(as('agent'), ALL_TABS)).toEqual(['messages', 'contacts'])
    expect(visibleTabs(null, ALL_TABS)).toEqual([])
  })

  it('reads each method’s permission from the operation table; open methods need nobody in particular', () => {
    expect(mayCall(as('agent'), 'inbox.assign')).toBe(true)
    expect(mayCall(as('agent'), 'contacts.create')).toBe(false)
    expect(mayCall(as('agent'), 'updates.status')).toBe(false)
    expect(mayCall(as('agent'), 'appSettings.get')).toBe(false)
    expect(mayCall(as('manager'), 'settings.updateGeneral')).toBe(true)
    expect(mayCall(as('manager'), 'backups.status')).toBe(false)
    expect(mayCall(null, 'auth.me')).toBe(true)
    expect(mayCall({ permissions: ['contacts:write'] }, 'contacts.list')).toBe(true)
  })

  it('offers an account-wide change only to a caller without an instance limit (the server’s rule)', () => {
    expect(mayCall({ ...as('manager'), instance_ids: null }, 'labels.create')).toBe(true)
    expect(mayCall({ ...as('manager'), instance_ids: ['a'] }, 'labels.create')).toBe(false)
    expect(mayCall({ ...as('manager'), instance_ids: ['a'] }, 'labels.list')).toBe(true)
    expect(mayCall({ permissions: ['admin'], instance_ids: ['a'] }, 'apiKeys.create')).toBe(false)
    expect(mayCall({ permissions: ['admin'], instance_ids: ['a'] }, 'intents.create')).toBe(true)
  })

  it('opens the tab kept when it is still shown, else the first shown', () => {
    expect(openingTab('settings', ['messages', 'contacts'])).toBe('messages')
    expect(openingTab('contacts', ['messages', 'contacts'])).toBe('contacts')
    expect(openingTab(null, [])).toBeNull()
  })

  it('starts the Inbox on the kept assignment filter, else all', () => {
    expect(initialAssignedFilter(null)).toBe('all')
    expect(initialAssignedFilter('mine')).toBe('mine')
    expect(initialAssignedFilter('nonsense')).toBe('all')
  })
})

describe('the assign menu', () => {
  const staff = [
    { id: 's1', name: 'Bea', active: true, instance_ids: ['A'] },
    { id: 's2', name: 'Carl', active: true, instance_ids: ['B'] },
    { id: 's3', name: 'Dora', active: false, instance_ids: null },
    { id: 's4', name: 'Eve', active: true, instance_ids: null }
  ]
  const owner = { kind: 'owner' as const, id: null, role: 'owner' as const }
  const agent = { kind: 'staff' as const, id: 's1', role: 'agent' as const }

  it('offers the owner themself, the active people of the instance, round-robin, and unassigning', () => {
    expect(assignChoices(owner, staff, 'A', { id: 's4' }).map((c) => c.label)).toEqual(['Assign to me', 'Assign to Bea', 'Round-robin (a signed-in agent)', 'Unassign'])
    expect(assignChoices(owner, staff, 'A', null)[0]!.to).toEqual({ staff_id: 'owner' })
    expect(assignChoices(owner, staff, 'A', null).map((c) => c.label)).not.toContain('Unassign')
  })

  it('offers an agent (who cannot list the staff) to take it, and to give back only their own', () => {
    expect(assignChoices(agent, null, 'A', null)).toEqual([{ label: 'Assign to me', to: { staff_id: 's1' } }])
    expect(assignChoices(agent, null, 'A', { id: 's1' })).toEqual([{ label: 'Unassign', to: { staff_id: null } }])
    expect(assignChoices(agent, null, 'A', { id: 's4' })).toEqual([{ label: 'Assign to me', to: { staff_id: 's1' } }])
  })

  it('says who assigned, took or unassigned a conversation', () => {
    const at = '2026-11-27T10:00:00.000Z'
    expect(timelineText({ at, kind: 'assigned', by: { kind: 'owner', name: 'Owner' }, assigned_to: { id: 's1', name: 'Bea' } })).toMatch(/^Owner assigned this conversation to Bea · /)
    expect(timelineText({ at, kind: 'assigned', by: { kind: 'staff', id: 's1', name: 'Bea' }, assigned_to: { id: 's1', name: 'Bea' } })).toMatch(/^Bea took this conversation · /)
    expect(timelineText({ at, kind: 'assigned', by: { kind: 'owner', name: 'Owner' }, assigned_to: { id: 'owner', name: 'Owner' } })).toMatch(/^Owner took this conversation/)
    expect(timelineText({ at, kind: 'assigned', by: { kind: 'staff', id: 's1', name: 'Bea' }, assigned_to: null })).toMatch(/^Bea unassigned this conversation/)
  })
})

describe('sign-in words', () => {
  it('names a wrong password, a lock with its wait, an expired invite, and passes other messages on', () => {
    expect(signInRefusal('password', 401, null, 'Unauthorized')).toBe('Wrong login or password.')
    expect(signInRefusal('password', 429, 840, 'locked')).toBe('Too many failed attempts. Try again in 840 s.')
    expect(signInRefusal('invite', 401, null, 'x')).toMatch(/unknown, already used or expired/)
    expect(signInRefusal('invite', 400, null, 'password must have at least 10 characters')).toBe('password must have at least 10 characters')
  })

  it('asks for 10 characters and the same password twice', () => {
    expect(newPasswordProblem('short', 'short')).toMatch(/at least 10/)
    expect(newPasswordProblem('long enough pw', 'long enough pv')).toBe('The two passwords differ.')
    expect(newPasswordProblem('long enough pw', 'long enough pw')).toBeNull()
  })

  it('draws initials from a name', () => {
    expect(initialsOf('Bea Rossi')).toBe('BR')
    expect(initialsOf('owner')).toBe('OW')
  })
})

describe('People tab texts', () => {
  const nameOf = (id: string) => ({ A: 'Pizzeria', B: 'Bakery' })[id] ?? id
  it('names instances, every instance for none, and turns an empty pick into null', () => {
    expect(instancesText(null, nameOf)).toBe('Every instance')
    expect(instancesText(['A', 'B'], nameOf)).toBe('Pizzeria, Bakery')
    expect(instanceIdsOf([])).toBeNull()
    expect(instanceIdsOf(['A'])).toEqual(['A'])
  })

  it('says what an audit entry records and who did it', () => {
    // A change reads as its operation's audit text (the table's), with the instance it was about.
    expect(auditWhat({ kind: 'change', detail: { operation: 'staff.create' } })).toBe('Added a person')
    expect(auditWhat({ kind: 'change', detail: { operation: 'apiKeys.delete' } })).toBe('Revoked an API key')
    expect(auditWhat({ kind: 'change', detail: { operation: 'settings.setWebhook', instance_id: 'i1' } }, (id) => (id === 'i1' ? 'Pizzeria' : id))).toBe('Changed the webhook · Pizzeria')
    // An operation this release does not know (an entry written by another): its name.
    expect(auditWhat({ kind: 'change', detail: { operation: 'gone.op' } })).toBe('gone.op')
    expect(auditWhat({ kind: 'login_failed', detail: { reason: 'locked' } })).toBe('Sign-in refused (account locked)')
    expect(auditWhat({ kind: 'logout', detail: { everywhere: true } })).toBe('Signed out everywhere')
    expect(auditWho({ actor: 'owner', actor_name: null })).toBe('Owner')
    expect(auditWho({ actor: 'staff:1', actor_name: 'Bea' })).toBe('Bea')
    expect(auditWho({ actor: 'mallory', actor_name: null })).toBe('mallory')
  })
})

describe('who sent a message, in the viewer’s words', () => {
  const bea = { kind: 'staff' as const, id: 's1', name: 'Bea' }
  it('names the sender, and says You for the viewer’s own sends', () => {
    expect(senderLabel({ source: 'api', pushName: null, sent_by: bea }, { kind: 'owner', id: null })).toBe('Bea')
    expect(senderLabel({ source: 'api', pushName: null, sent_by: bea }, { kind: 'staff', id: 's1' })).toBe('You')
    expect(senderLabel({ source: 'api', pushName: null, sent_by: bea }, { kind: 'staff', id: 's2' })).toBe('Bea')
    expect(senderLabel({ source: 'desk', pushName: null, sent_by: { kind: 'owner', name: 'Owner' } }, { kind: 'owner', id: null })).toBe('You')
    expect(senderLabel({ source: 'bot', pushName: null, sent_by: { kind: 'bot', name: 'Bot' } }, { kind: 'owner', id: null })).toBe('Bot')
    expect(senderLabel({ source: 'inbound', pushName: 'Ann' }, { kind: 'owner', id: null })).toBe('Ann')
    expect(isMine(undefined, { kind: 'owner', id: null })).toBe(false)
  })
})

describe('the hand-off bar names who took the chat over', () => {
  const owner = { kind: 'owner' as const, id: null }
  it('says you replied for the viewer, the person’s name for someone else', () => {
    expect(pauseReason({ reason: 'human_reply', taken_by: { kind: 'owner', name: 'Owner' } }, owner)).toBe('you replied')
    expect(pauseReason({ reason: 'human_reply', taken_by: { kind: 'staff', id: 's1', name: 'Bea' } }, owner)).toBe('Bea replied')
    expect(pauseReason({ reason: 'manual', taken_by: { kind: 'staff', id: 's1', name: 'Bea' } }, owner)).toBe('paused by Bea')
    expect(pauseReason({ reason: 'human_reply', taken_by: { kind: 'staff', id: 's1', name: 'Bea' } }, { kind: 'staff', id: 's1' })).toBe('you replied')
    expect(pauseReason({ reason: 'keyword' }, owner)).toBe('the customer asked for a person')
  })
})

describe('the workers, shown only on a desk that has several', () => {
  const one = { workers: [{ id: 'desk:3210', url: 'http://127.0.0.1:3210', last_seen_at: '2026-11-27T05:00:00.000Z', instances: 2, alive: true }], instances: [{ session_id: 's1', owner: 'desk:3210', lease_expires_at: null }] }
  const three = {
    workers: [
      { id: 'worker1', url: 'http://worker1:3210', last_seen_at: '2026-11-27T05:00:00.000Z', instances: 1, alive: true },
      { id: 'worker2', url: 'http://worker2:3210', last_seen_at: '2026-11-27T04:58:00.000Z', instances: 0, alive: false },
      { id: 'worker3', url: 'http://worker3:3210', last_seen_at: '2026-11-27T05:00:03.000Z', instances: 1, alive: true }
    ],
    instances: [
      { session_id: 's1', owner: 'worker3', lease_expires_at: '2026-11-27T05:00:18.000Z' },
      { session_id: 's2', owner: null, lease_expires_at: null }
    ]
  }
  it('says nothing on one worker, and names the worker of each instance on several', () => {
    expect(isCluster(one)).toBe(false)
    expect(workerLine(one, 's1')).toBeNull()
    expect(workerLine(three, 's1')).toBe('Runs on worker3')
    expect(workerLine(three, 's2')).toBe('Not running on any worker')
    expect(workerSummary(three.workers[0]!, Date.parse('2026-11-27T05:00:04.000Z'))).toBe('1 instance · seen 4 s ago')
    expect(workerSummary(three.workers[1]!, Date.parse('2026-11-27T05:00:04.000Z'))).toBe('Not responding · last seen 2 min ago')
  })
})
