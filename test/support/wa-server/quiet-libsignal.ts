/**
 * libsignal (used by Baileys and by the test server's peers) reports routine session changes with
 * console.info/console.warn, dumping whole session records ("Closing session: SessionEntry {…}").
 * Re-keying is normal in these tests (Baileys v7 refreshes sessions when a usync maps a number to a
 * LID), so those lines are dropped while a test file runs — with the product's own filter
 * (src/main/channel/baileys/libsignal-console.ts); everything else still prints.
 */
import { routeLibsignalConsole } from '../../../src/main/channel/baileys/libsignal-console'

/** Drops libsignal's console lines; answers the restore. */
export function quietLibsignal(): () => void {
  return routeLibsignalConsole()
}
