/**
 * The Electron shell's logic with no Electron: window bounds fitting, secure web preferences,
 * navigation / new-window blocking with external links to the browser, the session's permission
 * and CSP handling, the tray summary and the disconnect notifications.
 */
import { describe, expect, it, vi } from 'vitest'
import { fitBounds, DEFAULT_BOUNDS, loadWindowState, saveWindowState } from '../../../src/main/electron/window-state'
import { hardenSession, hardenWebContents, isExternalLink, secureWebPreferences } from '../../../src/main/electron/security'
import { handoffNotice, stateNotice, traySummary } from '../../../src/main/electron/status-summary'
import { CONTENT_SECURITY_POLICY } from '../../../src/shared/csp'
import type { Instance } from '../../../src/shared/schemas/records'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const SCREEN = [{ x: 0, y: 0, width: 1920, height: 1080 }]

describe('fitBounds', () => {
  it('uses defaults without a saved state and keeps a visible saved position', () => {
    expect(fitBounds(null, SCREEN)).toEqual(DEFAULT_BOUNDS)
    expect(fitBounds({ x: 100, y: 50, width: 1000, height: 700, maximized: true }, SCREEN)).toEqual({ x: 100, y: 50, width: 1000, height: 700, maximized: true })
  })
  it('drops a position on an unplugged monitor and enforces a minimum size', () => {
    expect(fitBounds({ x: 2500, y: 100, width: 300, height: 200 }, SCREEN)).toEqual({ width: 800, height: 560, maximized: false })
  })
  it('round-trips through the state file and tolerates a broken one', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ws-')), 'window-state.json')
    expect(loadWindowState(file)).toBeNull()
    saveWindowState(file, { x: 1, y: 2, width: 900, height: 600 })
    expect(loadWindowState(file)).toEqual({ x: 1, y: 2, width: 900, height: 600 })
  })
})

describe('security', () => {
  it('sets contextIsolation, sandbox and no nodeIntegration', () => {
    expect(secureWebPreferences('/p.cjs')).toMatchObject({ preload: '/p.cjs', contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false })
  })

  function fakeContents() {
    const on = new Map<string, (...a: any[]) => void>()
    let openHandler: ((d: { url: string }) => { action: string }) | undefined
    return {
      contents: { on: (ev: string, fn: (...a: any[]) => void) => on.set(ev, fn), setWindowOpenHandler: (fn: any) => (openHandler = fn) } as any,
      emit: (ev: string, url?: string) => {
        const event = { preventDefault: vi.fn() }
        on.get(ev)!(event, url)
        return event.preventDefault.mock.calls.length > 0
      },
      open: (url: string) => openHandler!({ url })
    }
  }
  const isApp = (url: string) => url.startsWith('file:///app/renderer/')

  it('blocks navigation away from the app and sends external links to the browser', () => {
    const openExternal = vi.fn()
    const f = fakeContents()
    hardenWebContents(f.contents, isApp, openExternal)
    expect(f.emit('will-navigate', 'file:///app/renderer/index.html')).toBe(false)
    expect(f.emit('will-navigate', 'https://example.com/')).toBe(true)
    expect(f.emit('will-navigate', 'file:///etc/passwd')).toBe(true)
    expect(openExternal.mock.calls).toEqual([['https://example.com/']])
    expect(f.emit('will-redirect', 'https://evil.example/')).toBe(true)
    expect(f.emit('will-attach-webview')).toBe(true)
  })

  it('denies every new window; http(s) links open in the browser, others nowhere', () => {
    const openExternal = vi.fn()
    const f = fakeContents()
    hardenWebContents(f.contents, isApp, openExternal)
    expect(f.open('http://127.0.0.1:3210/docs')).toEqual({ action: 'deny' })
    expect(f.open('javascript:alert(1)')).toEqual({ action: 'deny' })
    expect(openExternal.mock.calls).toEqual([['http://127.0.0.1:3210/docs']])
    expect(isExternalLink('file:///x')).toBe(false)
  })

  it('refuses permissions and adds the CSP header', () => {
    let perm: any
    let headers: any
    hardenSession({ setPermissionRequestHandler: (fn: any) => (perm = fn), webRequest: { onHeadersReceived: (fn: any) => (headers = fn) } } as any)
    const cb = vi.fn()
    perm(null, 'media', cb)
    expect(cb).toHaveBeenCalledWith(false)
    const out = vi.fn()
    headers({ responseHeaders: { a: ['b'] } }, out)
    expect(out).toHaveBeenCalledWith({ responseHeaders: { a: ['b'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } })
  })
})

describe('tray summary and notifications', () => {
  const inst = (status: string) => ({ settings: { status } }) as unknown as Instance
  it('summarises instance states', () => {
    expect(traySummary([])).toBe('No instances')
    expect(traySummary([inst('CONNECTED'), inst('CONNECTED'), inst('QR'), inst('LOGGED_OUT'), inst('DISCONNECTED')])).toBe('2 connected · 1 waiting for a scan · 2 offline')
  })
  it('notifies when a connected instance drops or any is logged out, not at shutdown or while pairing', () => {
    expect(stateNotice({ previous: 'CONNECTED', state: 'CONNECTING', reason: 'timed out' }, 'Shop')).toEqual({ title: 'Shop disconnected', body: 'Connection lost (timed out). Reconnecting…' })
    expect(stateNotice({ previous: 'QR', state: 'LOGGED_OUT' }, 'Shop')?.title).toBe('Shop was logged out')
    expect(stateNotice({ previous: 'CONNECTED', state: 'DISCONNECTED', reason: 'stopped' }, 'Shop')).toBeNull()
    expect(stateNotice({ previous: 'CONNECTING', state: 'QR' }, 'Shop')).toBeNull()
    expect(stateNotice({ previous: 'QR', state: 'CONNECTED' }, 'Shop')).toBeNull()
    // The owner's own unlink or delete here, as opposed to the phone's or WhatsApp's.
    expect(stateNotice({ previous: 'CONNECTED', state: 'LOGGED_OUT', reason: 'logged out' }, 'Shop')).toBeNull()
    expect(stateNotice({ previous: 'CONNECTED', state: 'LOGGED_OUT', reason: 'logged out by WhatsApp: device removed' }, 'Shop')?.title).toBe('Shop was logged out')
  })

  it('notifies when a customer asks for a person, not when the owner paused the bot', () => {
    expect(handoffNotice({ reason: 'keyword', chatId: '15550001111@s.whatsapp.net' }, 'Shop')).toEqual({
      title: '+15550001111 asks for a person',
      body: 'Shop paused the bot for this chat. Open the inbox to answer.'
    })
    expect(handoffNotice({ reason: 'human_reply', chatId: '15550001111@s.whatsapp.net' }, 'Shop')).toBeNull()
    expect(handoffNotice(null, 'Shop')).toBeNull()
  })
})
