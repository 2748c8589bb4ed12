import { describe, expect, it } from 'vitest'
import { cappingLimits, reachoutLimits } from '../../../src/main/channel/baileys/send-limits'
import { outreachBlocked } from '../../../src/main/domain/outreach-limits'
import type { BaileysEventMap } from 'baileys'

const NOW = Date.parse('2026-11-22T12:00:00Z')

describe('WhatsApp outreach limits (Baileys #2445)', () => {
  it('maps message-capping.update, with the cycle end as ISO time', () => {
    const info = { capping_status: 'CAPPED', used_quota: 250, total_quota: 250, cycle_end_timestamp: '1795435200' } as BaileysEventMap['message-capping.update']
    expect(cappingLimits(info)).toEqual({ capping: { status: 'CAPPED', used: 250, total: 250, until: '2026-11-23T12:00:00.000Z' } })
    expect(cappingLimits({} as BaileysEventMap['message-capping.update'])).toEqual({ capping: { status: 'NONE' } })
  })

  it('maps the reach-out time lock; a lifted lock carries no end', () => {
    expect(reachoutLimits({ isActive: true, timeEnforcementEnds: new Date(NOW + 3600_000) })).toEqual({ reachout_lock: { active: true, until: '2026-11-22T13:00:00.000Z' } })
    expect(reachoutLimits({ isActive: false, timeEnforcementEnds: new Date(NOW) })).toEqual({ reachout_lock: { active: false } })
  })

  it('holds back sends to people who never wrote while capped or locked, until the end passes', () => {
    expect(outreachBlocked(undefined, NOW)).toBeNull()
    expect(outreachBlocked({ capping: { status: 'SECOND_WARNING' } }, NOW)).toBeNull()
    expect(outreachBlocked({ capping: { status: 'CAPPED', used: 5, total: 5, until: '2026-11-22T13:00:00.000Z' } }, NOW)).toMatch(/5 of 5 used until 2026-11-22 13:00 \(UTC\)/)
    expect(outreachBlocked({ capping: { status: 'CAPPED', until: '2026-11-22T11:00:00.000Z' } }, NOW)).toBeNull()
    expect(outreachBlocked({ reachout_lock: { active: true } }, NOW)).toMatch(/reaching out to new people/)
    expect(outreachBlocked({ reachout_lock: { active: true, until: '2026-11-22T11:59:00.000Z' } }, NOW)).toBeNull()
  })
})
