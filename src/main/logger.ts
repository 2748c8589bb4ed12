/**
 * The app logger: pino, JSON lines to stderr by default. Passed into every service (never imported
 * as a singleton) so tests can silence or capture it.
 */
import { pino, type Logger as PinoLogger } from 'pino'

export type Logger = PinoLogger

/** Creates the root logger. `level` is a pino level name (`info`, `warn`, `silent`, …). */
export function createLogger(level: string = process.env.CHATAPP_LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: undefined }, pino.destination({ dest: 2, sync: false }))
}

/** A logger that drops everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}
