/**
 * The update feed rule (src/main/electron/update-feed.ts), shared by the build and the app: https
 * only, plain http to a loopback host only with the explicit test override, the environment over the
 * build's app-update.yml, and a GitHub repository read as its latest-release download folder.
 */
import { describe, expect, it } from 'vitest'
import { checkFeedUrl, resolveFeed, UpdateFeedError } from '../../../src/main/electron/update-feed'

describe('update feed', () => {
  it('takes https, trims the trailing slash, refuses http, other schemes, credentials and non-URLs', () => {
    expect(checkFeedUrl(' https://updates.example.com/desk/ ')).toBe('https://updates.example.com/desk')
    expect(() => checkFeedUrl('http://updates.example.com/desk')).toThrow(/must use https/)
    expect(() => checkFeedUrl('http://updates.example.com/desk', true)).toThrow(/must use https/)
    expect(() => checkFeedUrl('file:///tmp/feed')).toThrow(UpdateFeedError)
    expect(() => checkFeedUrl('https://user:pw@updates.example.com/')).toThrow(/user name or password/)
    expect(() => checkFeedUrl('updates.example.com')).toThrow(/not a URL/)
  })

  it('allows plain http to a loopback host only with the test override', () => {
    expect(() => checkFeedUrl('http://127.0.0.1:8080/feed')).toThrow(/CHATAPP_UPDATE_ALLOW_HTTP_LOOPBACK=1/)
    expect(checkFeedUrl('http://127.0.0.1:8080/feed', true)).toBe('http://127.0.0.1:8080/feed')
    expect(checkFeedUrl('http://[::1]:8080/', true)).toBe('http://[::1]:8080')
  })

  it('resolves CHATAPP_UPDATE_URL first, then the build, and says why there is none', () => {
    const built = { provider: 'generic', url: 'https://github.com/o/r/releases/latest/download' }
    expect(resolveFeed({ CHATAPP_UPDATE_URL: 'https://feed.example/x' }, built)).toEqual({ ok: true, url: 'https://feed.example/x', source: 'environment' })
    expect(resolveFeed({}, built)).toEqual({ ok: true, url: built.url, source: 'build' })
    expect(resolveFeed({}, { provider: 'github', owner: 'o', repo: 'r' })).toEqual({ ok: true, url: 'https://github.com/o/r/releases/latest/download', source: 'build' })
    expect(resolveFeed({ CHATAPP_UPDATE_URL: 'http://feed.example/x' }, built)).toEqual({ ok: false, reason: expect.stringMatching(/https/) })
    expect(resolveFeed({}, null)).toEqual({ ok: false, reason: expect.stringMatching(/no update feed/) })
    expect(resolveFeed({ CHATAPP_UPDATE_URL: 'http://127.0.0.1:9/f', CHATAPP_UPDATE_ALLOW_HTTP_LOOPBACK: '1' }, null)).toMatchObject({ ok: true, url: 'http://127.0.0.1:9/f' })
  })
})
