/**
 * What Settings → About says about updates (docs/ui.md "Updates in the UI"): one headline per state, and what a restart
 * waits for or asks about, in the owner's words. Pure, so it is tested without a browser.
 */
import type { UpdateBlockerT, UpdateStatusT } from '../../shared/operations/updates'

const BLOCKER_TEXT: Record<UpdateBlockerT, string> = {
  broadcast: 'a broadcast is sending',
  survey: 'a customer is in the middle of a survey',
  sends: 'a message is being sent'
}

/** "a broadcast is sending and a customer is in the middle of a survey". */
export function blockersText(blockers: readonly UpdateBlockerT[]): string {
  const parts = blockers.map((b) => BLOCKER_TEXT[b])
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`
}

/** Bytes as "12.3 MB". */
export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** The headline of the update status (`when` formats an ISO time for people). */
export function updateHeadline(s: UpdateStatusT, when: (iso: string) => string = (iso) => new Date(iso).toLocaleString()): string {
  const next = s.available?.version
  switch (s.state) {
    case 'idle':
      return 'Updates are checked a minute after the app starts, then once a day.'
    case 'checking':
      return 'Checking for updates…'
    case 'up-to-date':
      return `Chatapp Desk is up to date${s.lastCheckAt ? ` (checked ${when(s.lastCheckAt)})` : ''}.`
    case 'available':
      return `Version ${next} is available.`
    case 'downloading': {
      const p = s.progress
      return p && p.total > 0 ? `Downloading version ${next}… ${Math.floor(p.percent)}% of ${megabytes(p.total)}` : `Downloading version ${next}…`
    }
    case 'downloaded':
      return `Version ${next} is ready to install.`
    case 'installing':
      return s.blockers.length > 0 ? `Restarting to install version ${next} as soon as nothing else runs: ${blockersText(s.blockers)}.` : `Restarting to install version ${next}…`
    case 'error':
      return 'The last update check did not work.'
  }
}

/** When a downloaded update installs if the owner does nothing. */
export function installWhenText(s: Pick<UpdateStatusT, 'needsPassword' | 'installsOnQuit' | 'autoDownload'>): string {
  if (s.needsPassword) return 'Installing asks for your administrator password, so it waits until you choose Restart to update.'
  if (s.installsOnQuit) return 'It installs when you quit the app, or at night when nothing is being sent.'
  return 'It installs when you choose Restart to update.'
}
