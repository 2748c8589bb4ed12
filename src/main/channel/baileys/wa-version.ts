/**
 * The WA Web version the sockets announce (docs/baileys.md "Production settings"). WhatsApp refuses
 * outdated clients (close 405), and the version bundled with the library ages between releases, so the
 * current one is fetched once per app start (`fetchLatestWaWebVersion`, lib/Utils/generics.js), shared
 * by every instance, with a timeout and the bundled one as fallback; a 405 fetches it again (at most
 * once a minute, however many instances hit it).
 */
import { DEFAULT_CONNECTION_CONFIG, fetchLatestWaWebVersion, type WAVersion } from 'baileys'
import type { Logger } from '../../logger'

/** Answers the current version, or undefined when it cannot tell. */
export type VersionFetcher = () => Promise<WAVersion | undefined>

/** The library's fetcher with a timeout (ms). */
export function libraryVersionFetcher(timeoutMs = 5000): VersionFetcher {
  return async () => {
    const res = await fetchLatestWaWebVersion({ signal: AbortSignal.timeout(timeoutMs) })
    return res.isLatest ? res.version : undefined
  }
}

export interface WaVersionSourceOptions {
  /** null: never fetch (a test server does not care), use `bundled`. */
  fetch: VersionFetcher | null
  bundled?: WAVersion
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

  /** The version to connect with: fetched on the first call, then the same answer for everyone. */
  get(): Promise<WAVersion> {
    if (!this.current) {
      this.lastFetchAt = (this.opts.now ?? Date.now)()
      this.current = this.fetch(this.bundled)
    }
    return this.current
  }

  /** After a 405: fetches again, unless a fetch ran within the refresh gap. */
  refresh(): Promise<WAVersion> {
    const now = (this.opts.now ?? Date.now)()
    if (now - this.lastFetchAt < (this.opts.refreshGapMs ?? 60_000)) return this.get()
    const previous = this.get()
    this.lastFetchAt = now
    this.current = previous.then((v) => this.fetch(v))
    return this.current
  }

  private async fetch(fallback: WAVersion): Promise<WAVersion> {
    if (!this.opts.fetch) return fallback
    try {
      const v = await this.opts.fetch()
      if (v) {
        this.opts.logger?.info({ version: v.join('.') }, 'using the current WA Web version')
        return v
      }
    } catch (err) {
      this.opts.logger?.warn({ err }, 'could not fetch the current WA Web version; keeping the one we have')
    }
    return fallback
  }
}
