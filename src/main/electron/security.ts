/**
 * Secure defaults of the Electron window (Electron's security checklist): web preferences with
 * contextIsolation, sandbox and no nodeIntegration; navigation and new windows blocked; external
 * http(s) links handed to the system browser; webviews and permission requests refused; the CSP sent
 * as a header for the app's own pages too.
 */
import type { BrowserWindowConstructorOptions, Session, WebContents } from 'electron'
import { CONTENT_SECURITY_POLICY } from '../../shared/csp'

/** webPreferences of the app window. */
export function secureWebPreferences(preloadPath: string): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false
  }
}

/** True for links to open in the system browser (http, https, mailto). */
export function isExternalLink(url: string): boolean {
  try {
    return ['http:', 'https:', 'mailto:'].includes(new URL(url).protocol)
  } catch {
    return false
  }
}

/**
 * Blocks navigation away from the app and every new window; external links go to `openExternal`
 * instead. `isAppUrl` tells the app's own pages (a reload stays allowed).
 */
export function hardenWebContents(contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>, isAppUrl: (url: string) => boolean, openExternal: (url: string) => void): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalLink(url)) openExternal(url)
    return { action: 'deny' }
  })
  contents.on('will-navigate', (event, url) => {
    if (isAppUrl(url)) return
    event.preventDefault()
    if (isExternalLink(url)) openExternal(url)
  })
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault()
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
}

/** Refuses every permission request (camera, notifications from pages, …) and adds the CSP header. */
export function hardenSession(session: Pick<Session, 'setPermissionRequestHandler' | 'webRequest'>, csp = CONTENT_SECURITY_POLICY): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } })
  })
}
