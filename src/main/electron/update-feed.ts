/**
 * Where updates come from (docs/design.md §19): one rule for the build (electron-builder.ts writes the feed into
 * the packages' `app-update.yml`) and for the running app (which reads it back, or takes
 * `CHATAPP_UPDATE_URL` over it). The feed is a folder served over HTTPS holding electron-updater's
 * `latest.yml` / `latest-mac.yml` / `latest-linux.yml` and the installers they name (the generic
 * provider); a GitHub repository's releases are such a folder at `…/releases/latest/download`.
 *
 * Plain HTTP is refused: an update is code the app will run, so its feed must be authenticated by TLS
 * (the sha512 in `latest*.yml` only proves the download matches the feed). Tests serve a feed from a
 * loopback port over HTTP, and may, only when `CHATAPP_UPDATE_ALLOW_HTTP_LOOPBACK=1` says so.
 *
 * No Electron import: the build and the tests load this in plain Node.
 */

/** The repository whose GitHub releases are the default feed (package.json `repository`). */
export const GITHUB_REPOSITORY = { owner: 'chatapp-desk', repo: 'chatapp-desk' } as const

/** The generic-provider URL of a GitHub repository's latest (published, non-draft) release. */
export function githubLatestDownloadUrl(owner: string, repo: string): string {
  return `https://github.com/${owner}/${repo}/releases/latest/download`
}

export class UpdateFeedError extends Error {
  override readonly name = 'UpdateFeedError'
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/**
 * The feed URL, checked: absolute `https:`, or `http:` to a loopback host when `allowLoopbackHttp`
 * (tests). Answers it without a trailing slash. Throws {@link UpdateFeedError} saying why otherwise.
 */
export function checkFeedUrl(raw: string, allowLoopbackHttp = false): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new UpdateFeedError(`The update feed "${raw}" is not a URL`)
  }
  if (url.username || url.password) throw new UpdateFeedError('The update feed URL must not carry a user name or password')
  if (url.protocol === 'http:') {
    if (!LOOPBACK_HOSTS.has(url.hostname)) throw new UpdateFeedError(`The update feed must use https (got ${url.origin})`)
    if (!allowLoopbackHttp) throw new UpdateFeedError(`The update feed ${url.origin} is plain http: allowed for tests only, with CHATAPP_UPDATE_ALLOW_HTTP_LOOPBACK=1`)
  } else if (url.protocol !== 'https:') {
    throw new UpdateFeedError(`The update feed must use https (got ${url.protocol})`)
  }
  return url.href.replace(/\/+$/, '')
}

/** What `app-update.yml` (written by electron-builder from the `publish` config) says, as parsed YAML. */
export interface AppUpdateConfig {
  provider?: string
  url?: string
  owner?: string
  repo?: string
}

export type ResolvedFeed = { ok: true; url: string; source: 'environment' | 'build' } | { ok: false; reason: string }

/**
 * The running app's feed: `CHATAPP_UPDATE_URL` when set, else the build's `app-update.yml` (a generic
 * URL, or a GitHub repository turned into its latest-release download URL). Never throws: a missing or
 * refused feed is `{ok:false, reason}` for the About section to show.
 */
export function resolveFeed(env: Record<string, string | undefined>, built: AppUpdateConfig | null): ResolvedFeed {
  const allowHttp = env.CHATAPP_UPDATE_ALLOW_HTTP_LOOPBACK === '1'
  try {
    const fromEnv = env.CHATAPP_UPDATE_URL?.trim()
    if (fromEnv) return { ok: true, url: checkFeedUrl(fromEnv, allowHttp), source: 'environment' }
    if (built?.provider === 'generic' && built.url) return { ok: true, url: checkFeedUrl(built.url, allowHttp), source: 'build' }
    if (built?.provider === 'github' && built.owner && built.repo) return { ok: true, url: githubLatestDownloadUrl(built.owner, built.repo), source: 'build' }
  } catch (err) {
    return { ok: false, reason: (err as Error).message }
  }
  return { ok: false, reason: 'This build has no update feed (no app-update.yml and no CHATAPP_UPDATE_URL).' }
}
