/**
 * libsignal (the Signal implementation Baileys uses) writes straight to `console`: "Closing session:",
 * "Opening session:", "Session already closed" … followed by the whole `SessionEntry`, which holds the
 * session's private keys (node_modules/libsignal/src/session_record.js, session_builder.js,
 * session_cipher.js). Re-keying is routine in Baileys 7 (a usync that maps a number to a LID closes and
 * opens sessions), so a served app would print secret key material to stdout during normal use.
 *
 * {@link routeLibsignalConsole} takes those lines off the console: each becomes its message text
 * only (never the objects after it), handed to `log` (the app logs it at debug level). Other console
 * output passes through unchanged. Process-wide, as `console` is; calling it again replaces `log`.
 */

/** The first argument of every console call libsignal makes. */
const LIBSIGNAL_LINE =
  /^(Closing session|Opening session|Closing open session in favor of incoming prekey bundle|Removing old closed session|Session already (open|closed)|Migrating session to|Decrypted message with closed session|Failed to decrypt message with any known session|Session error:|WARNING: Expected pubkey of length 33|Unhandled bucket type|V1 session storage migration error)/

type ConsoleMethod = (...args: unknown[]) => void
const METHODS = ['info', 'warn', 'error', 'log'] as const

let original: Record<(typeof METHODS)[number], ConsoleMethod> | null = null
let sink: (line: string) => void = () => {}

/** True when a console call with these arguments comes from libsignal. */
export function isLibsignalLine(args: readonly unknown[]): boolean {
  return typeof args[0] === 'string' && LIBSIGNAL_LINE.test(args[0])
}

/**
 * Routes libsignal's console lines to `log` (message text only); answers a function that puts the
 * console back as it was.
 */
export function routeLibsignalConsole(log: (line: string) => void = () => {}): () => void {
  sink = log
  if (!original) {
    const saved = { info: console.info, warn: console.warn, error: console.error, log: console.log }
    original = saved
    for (const m of METHODS) {
      console[m] = (...args: unknown[]) => {
        if (isLibsignalLine(args)) sink(String(args[0]).replace(/:\s*$/, ''))
        else saved[m].apply(console, args)
      }
    }
  }
  return () => {
    if (!original) return
    for (const m of METHODS) console[m] = original[m]
    original = null
    sink = () => {}
  }
}
