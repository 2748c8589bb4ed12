/**
 * When the desktop app checks for, downloads and installs updates (docs/design.md §19). Pure decisions over
 * plain facts, so every rule is tested without Electron, a network or a clock:
 *
 * - checks: shortly after start, then a day after the last check;
 * - "Restart to update" (the user): a running broadcast or survey asks for confirmation first; sends
 *   in flight are always waited for;
 * - by itself: never while a broadcast is sending, a survey waits for an answer or a send is in
 *   flight; only at night (local {@link QUIET_HOURS}), only with automatic updates on, and only for
 *   packages that install without an administrator password. A .deb or .rpm installs through pkexec,
 *   whose password prompt would block the app (and its bots) with nobody at the PC: those wait for the
 *   user's click.
 */
import type { ActivitySnapshot } from '../services/activity'

/** How the installed app applies an update: Linux packages by `resources/package-type`, else by OS. */
export type InstallKind = 'deb' | 'rpm' | 'pacman' | 'appimage' | 'nsis' | 'mac'

/** What holds a restart back. */
export type Blocker = 'broadcast' | 'survey' | 'sends'

/** First check after start (ms): the app restores its sessions first. */
export const FIRST_CHECK_DELAY_MS = 60_000
/** Between checks (ms): once a day. */
export const CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000
/** How often a downloaded update looks for a quiet moment to install by itself (ms). */
export const AUTO_INSTALL_POLL_MS = 10 * 60 * 1000
/** Local hours [from, to) in which the app may restart by itself: a shop is closed then. */
export const QUIET_HOURS = { from: 2, to: 5 } as const

/** The blockers in `activity`, broadcasts first. */
export function blockers(activity: ActivitySnapshot): Blocker[] {
  const out: Blocker[] = []
  if (activity.broadcasts > 0) out.push('broadcast')
  if (activity.surveys > 0) out.push('survey')
  if (activity.sends > 0) out.push('sends')
  return out
}

export type RestartDecision =
  /** Nothing runs: install now. */
  | { action: 'install' }
  /** Only sends are in flight: install once they settled. */
  | { action: 'wait-for-sends' }
  /** A broadcast or survey runs: ask the user (restart anyway = `force`). */
  | { action: 'confirm'; blockers: Array<'broadcast' | 'survey'> }

/** The user clicked "Restart to update" (`force`: "Restart anyway" after being told what runs). */
export function restartDecision(activity: ActivitySnapshot, force: boolean): RestartDecision {
  const running = blockers(activity).filter((b): b is 'broadcast' | 'survey' => b !== 'sends')
  if (running.length > 0 && !force) return { action: 'confirm', blockers: running }
  return activity.sends > 0 ? { action: 'wait-for-sends' } : { action: 'install' }
}

/** Whether an update of this kind installs with no password prompt (so it may run unattended): Linux packages go through pkexec. */
export function installsUnattended(kind: InstallKind): boolean {
  return kind !== 'deb' && kind !== 'rpm' && kind !== 'pacman'
}

export interface AutoInstallFacts {
  activity: ActivitySnapshot
  kind: InstallKind
  /** The user's "download and install updates automatically". */
  automatic: boolean
  /** The PC's local hour, 0–23. */
  localHour: number
}

/** Whether a downloaded update may be installed now by the app itself (a restart nobody asked for). */
export function autoInstallDue(f: AutoInstallFacts): boolean {
  if (!f.automatic || !installsUnattended(f.kind)) return false
  if (f.localHour < QUIET_HOURS.from || f.localHour >= QUIET_HOURS.to) return false
  return blockers(f.activity).length === 0
}

/** Whether a downloaded update installs when the user quits the app (no restart: it starts next time updated). */
export function installOnQuit(kind: InstallKind, automatic: boolean): boolean {
  return automatic && installsUnattended(kind)
}

/** Milliseconds until the next check: {@link FIRST_CHECK_DELAY_MS} after start, then a day after the last one. */
export function nextCheckIn(lastCheckAt: number | null, now: number): number {
  if (lastCheckAt === null) return FIRST_CHECK_DELAY_MS
  return Math.max(0, lastCheckAt + CHECK_INTERVAL_MS - now)
}

/**
 * How this installation updates: on Linux by `resources/package-type` (written into each .deb and
 * .rpm by scripts/dist-linux.mjs; none or unknown = AppImage), the rule electron-updater picks its updater by.
 */
export function installKindOf(platform: NodeJS.Platform, packageType: string | null): InstallKind {
  if (platform === 'win32') return 'nsis'
  if (platform === 'darwin') return 'mac'
  const t = packageType?.trim()
  return t === 'deb' || t === 'rpm' || t === 'pacman' ? t : 'appimage'
}
