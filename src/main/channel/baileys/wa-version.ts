/**
 * The WA Web version the sockets announce (docs/baileys.md "The WA Web version"). WhatsApp refuses
 * outdated clients (close 405), and the version bundled with the library ages between releases, so the
 * current one is fetched once per app start (`fetchLatestWaWebVersion`, lib/Utils/generics.js), shared
 * by every instance, with a timeout; a 405 fetches it again (at most once a minute, however many
 * instances hit it).
 *
 * The last good answer is kept in the configuration document (`appSettings.waWebVersion`) and is what
 * a start falls back on, before the bundled one: when the fetch fails the library answers its bundled
 * version with `isLatest: false`, which WhatsApp refuses once it is old enough (Baileys #2777, #2731),
 * so such an answer is never used nor kept.
 */
import { DEFAULT_CONNECTION_CONFIG, fetchLatestWaWebVersion, type WAVersion } from 'baileys'
import type { Logger } from '../../logger'
import type { WaWebVersionMemory } from '../types'

/** Answers the current version, or undefined when it cannot tell. */
export type VersionFetcher = () => Promise<WAVersion | undefined>

/** The library's fetch of the current version and the shape of its answer (lib/Utils/generics.js). */
export type LatestWaWebVersion = (options?: RequestInit) => Promise<{ version: WAVersion; isLatest: boolean; error?: unknown }>

/**
 * The library's fetcher with a timeout (ms). Only an answer with `isLatest: true` counts: otherwise
 * the library could not read WhatsApp's page and answers the bundled version, which says nothing
 * about the current one. `latest`: the library's function (tests pass a stand-in for the page).
 */
export function libraryVersionFetcher(timeoutMs = 5000, latest: LatestWaWebVersion = fetchLatestWaWebVersion): VersionFetcher {
  return async () => {
    const res = await latest({ signal: AbortSignal.timeout(timeoutMs) })
    return res.isLatest && isWaVersion(res.version) ? res.version : undefined
  }
}

function isWaVersion(v: unknown): v is WAVersion {
  return Array.isArray(v) && v.length === 3 && v.every((n) => Number.isSafeInteger(n) && n >= 0)
}

export interface WaVersionSourceOptions {
  /** null: never fetch (a test server does not care), use the kept or the bundled version. */
  fetch: VersionFetcher | null
  bundled?: WAVersion
  /** Where the last good version is kept across restarts; without it only memory holds it. */
  memory?: WaWebVersionMemory
  logger?: Logger
  /** Least time between two fetches after a 405 (ms). */
  refreshGapMs?: number
  now?: () => number
}

export class WaVersionSource {
  private current: Promise<WAVersion> | null = null
  private lastFetchAt = Number.NEGATIVE_INFINITY
  private readonly bundled: WAVersion

  constructor(private readonly opts: WaVersionSourceOptions) {
    this.bundled = opts.bundled ?? DEFAULT_CONNECTION_CONFIG.version
  }

  /**
   * The version to connect with: fetched on the first call, then the same answer for everyone. When
   * the fetch tells nothing: the last good version kept, else the bundled one. Never rejects.
   */
  get(): Promise<WAVersion> {
    if (!this.current) {
      this.lastFetchAt = this.now()
      this.current = this.fetch(this.kept() ?? this.bundled)
    }
    return this.current
  }

  /** After a 405: fetches again, unless a fetch ran within the refresh gap. Never rejects. */
  refresh(): Promise<WAVersion> {
    const now = this.now()
    if (now - this.lastFetchAt < (this.opts.refreshGapMs ?? 60_000)) return this.get()
    const previous = this.get()
    this.lastFetchAt = now
    this.current = previous.then((v) => this.fetch(v))
    return this.current
  }

  private now(): number {
    return (this.opts.now ?? Date.now)()
  }

  /** The last good version kept, when it reads as one. */
  private kept(): WAVersion | undefined {
    try {
      const r = this.opts.memory?.waWebVersion()
      return r && isWaVersion(r.version) ? [...r.version] : undefined
    } catch (err) {
      this.opts.logger?.warn({ err }, 'could not read the last good WA Web version')
      return undefined
    }
  }

  private async fetch(fallback: WAVersion): Promise<WAVersion> {
    if (!this.opts.fetch) return fallback
    let v: WAVersion | undefined
    try {
      v = await this.opts.fetch()
    } catch (err) {
      this.opts.logger?.warn({ err }, 'could not fetch the current WA Web version; keeping the one we have')
    }
    if (!v) return fallback
    this.opts.logger?.info({ version: v.join('.') }, 'using the current WA Web version')
    try {
      await this.opts.memory?.setWaWebVersion({ version: [...v], fetchedAt: new Date(this.now()).toISOString() })
    } catch (err) {
      // A full disk must not stop the connection: the version is still good for this run.
      this.opts.logger?.warn({ err }, 'could not keep the current WA Web version for the next start')
    }
    return v
  }
}
