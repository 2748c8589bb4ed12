/**
 * The updater's rules (src/main/electron/update-policy.ts), as pure decisions: what a click on
 * "Restart to update" does with a broadcast, a survey or a send running; when the app may restart by
 * itself (quiet night hours, nothing running, automatic updates on, no password needed); install on
 * quit; when the next check is due.
 */
import { describe, expect, it } from 'vitest'
import {
  autoInstallDue,
  CHECK_INTERVAL_MS,
  FIRST_CHECK_DELAY_MS,
  installKindOf,
  installOnQuit,
  installsUnattended,
  nextCheckIn,
  QUIET_HOURS,
  restartDecision
} from '../../../src/main/electron/update-policy'

const idle = { broadcasts: 0, surveys: 0, sends: 0 }

describe('update policy', () => {
  it('"Restart to update" asks about a running broadcast or survey, and waits for sends', () => {
    expect(restartDecision(idle, false)).toEqual({ action: 'install' })
    expect(restartDecision({ ...idle, sends: 2 }, false)).toEqual({ action: 'wait-for-sends' })
    expect(restartDecision({ broadcasts: 1, surveys: 3, sends: 1 }, false)).toEqual({ action: 'confirm', blockers: ['broadcast', 'survey'] })
    expect(restartDecision({ broadcasts: 1, surveys: 0, sends: 1 }, true)).toEqual({ action: 'wait-for-sends' })
    expect(restartDecision({ broadcasts: 0, surveys: 1, sends: 0 }, true)).toEqual({ action: 'install' })
  })

  it('restarts by itself only in the quiet hours, with nothing running, automatic updates on and no password needed', () => {
    const at = (localHour: number, over: Partial<Parameters<typeof autoInstallDue>[0]> = {}) =>
      autoInstallDue({ activity: idle, kind: 'nsis', automatic: true, localHour, ...over })
    expect([0, 1, 2, 3, 4, 5, 12, 23].map((h) => at(h))).toEqual([false, false, true, true, true, false, false, false])
    expect(QUIET_HOURS).toEqual({ from: 2, to: 5 })
    for (const activity of [{ ...idle, broadcasts: 1 }, { ...idle, surveys: 1 }, { ...idle, sends: 1 }]) expect(at(3, { activity })).toBe(false)
    expect(at(3, { automatic: false })).toBe(false)
    expect(at(3, { kind: 'deb' })).toBe(false)
    expect(at(3, { kind: 'rpm' })).toBe(false)
    expect(at(3, { kind: 'appimage' })).toBe(true)
    expect(at(3, { kind: 'mac' })).toBe(true)
  })

  it('packages installed through pkexec (deb, rpm, pacman) never install unattended, not even on quit', () => {
    expect(['deb', 'rpm', 'pacman', 'appimage', 'nsis', 'mac'].map((k) => installsUnattended(k as never))).toEqual([false, false, false, true, true, true])
    expect(installOnQuit('nsis', true)).toBe(true)
    expect(installOnQuit('nsis', false)).toBe(false)
    expect(installOnQuit('deb', true)).toBe(false)
  })

  it('checks shortly after start, then a day after the last check', () => {
    const now = Date.parse('2026-11-25T12:00:00Z')
    expect(nextCheckIn(null, now)).toBe(FIRST_CHECK_DELAY_MS)
    expect(nextCheckIn(now - 3_600_000, now)).toBe(CHECK_INTERVAL_MS - 3_600_000)
    expect(nextCheckIn(now - 2 * CHECK_INTERVAL_MS, now)).toBe(0)
  })

  it('knows how the installation updates from the OS and resources/package-type', () => {
    expect(installKindOf('win32', null)).toBe('nsis')
    expect(installKindOf('darwin', null)).toBe('mac')
    expect(installKindOf('linux', 'deb\n')).toBe('deb')
    expect(installKindOf('linux', 'rpm')).toBe('rpm')
    expect(installKindOf('linux', null)).toBe('appimage')
    expect(installKindOf('linux', 'pacman')).toBe('pacman')
    expect(installKindOf('linux', 'snap')).toBe('appimage')
  })
})
