/**
 * libsignal (used by Baileys and by the test server's peers) reports routine session changes with
 * console.info/console.warn, dumping whole session records ("Closing session: SessionEntry {…}").
 * Re-keying is normal in these tests (Baileys v7 refreshes sessions when a usync maps a number to a
 * LID), so those lines are dropped while a test file runs; everything else still prints.
 */
const ROUTINE = /^(Closing session|Opening session|Closing open session in favor of incoming prekey bundle|Removing old closed session|Session already (open|closed))/

/** Filters libsignal's routine session messages out of console.info/warn; answers the restore. */
export function quietLibsignal(): () => void {
  const { info, warn } = console
  console.info = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && ROUTINE.test(args[0])) return
    info.apply(console, args)
  }
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && ROUTINE.test(args[0])) return
    warn.apply(console, args)
  }
  return () => {
    console.info = info
    console.warn = warn
  }
}
