/**
 * The Electron entry (src/main/index.ts) wired against a fully mocked electron module: it takes the
 * single-instance lock, starts the core and HTTP API, registers every contract method on ipcMain,
 * opens one window with secure web preferences and the preload, hardens every webContents, pushes
 * core events to the window, shows a notification when a connected instance drops, builds the tray,
 * and on quit closes the app before exiting.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'

const h = vi.hoisted(() => {
  const appHandlers = new Map<string, (...a: any[]) => void>()
  const ipcHandlers = new Map<string, (...a: any[]) => unknown>()
  const windows: any[] = []
  const notifications: any[] = []
  const trays: any[] = []
  let exited: (code: number) => void = () => {}
  const exitedP = new Promise<number>((r) => (exited = r))
  class BrowserWindow {
    sent: Array<[string, unknown]> = []
    options: any
    listeners = new Map<string, () => void>()
    webContents = { id: 7, send: (ch: string, ev: unknown) => this.sent.push([ch, ev]) }
    loaded: string | null = null
    constructor(options: any) {
      this.options = options
      windows.push(this)
    }
    maximize() {}
    on(ev: string, fn: () => void) {
      this.listeners.set(ev, fn)
    }
    once(ev: string, fn: () => void) {
      this.listeners.set(ev, fn)
    }
    loadFile(f: string) {
      this.loaded = f
      return Promise.resolve()
    }
    loadURL(u: string) {
      this.loaded = u
      return Promise.resolve()
    }
    isDestroyed() {
      return false
    }
    isMinimized() {
      return false
    }
    show() {}
    focus() {}
    restore() {}
    isMaximized() {
      return false
    }
    getNormalBounds() {
      return { x: 0, y: 0, width: 1000, height: 700 }
    }
  }
  class Notification {
    static isSupported() {
      return true
    }
    shown = false
    constructor(public options: any) {
      notifications.push(this)
    }
    on() {}
    show() {
      this.shown = true
    }
  }
  class Tray {
    tooltip = ''
    constructor() {
      trays.push(this)
    }
    setToolTip(t: string) {
      this.tooltip = t
    }
    setContextMenu() {}
    on() {}
    destroy() {}
  }
  return { appHandlers, ipcHandlers, windows, notifications, trays, exitedP, exited: (c: number) => exited(c), BrowserWindow, Notification, Tray }
})

vi.mock('electron', () => ({
  app: {
    isPackaged: false,
    requestSingleInstanceLock: () => true,
    whenReady: () => Promise.resolve(),
    on: (ev: string, fn: (...a: any[]) => void) => void h.appHandlers.set(ev, fn),
    getPath: () => process.env.CHATAPP_DATA_DIR,
    getLoginItemSettings: () => ({ openAtLogin: false }),
    setLoginItemSettings: () => {},
    quit: () => {},
    exit: (code: number) => h.exited(code)
  },
  BrowserWindow: h.BrowserWindow,
  Notification: h.Notification,
  Tray: h.Tray,
  Menu: { buildFromTemplate: (t: unknown) => t },
  nativeImage: { createFromPath: (p: string) => p },
  screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
  session: { defaultSession: { setPermissionRequestHandler: () => {}, webRequest: { onHeadersReceived: () => {} } } },
  shell: { openExternal: async () => {} },
  dialog: { showErrorBox: (t: string, m: string) => console.error(t, m) },
  ipcMain: { handle: (ch: string, fn: (...a: any[]) => unknown) => void h.ipcHandlers.set(ch, fn), removeHandler: () => {} }
}))

let dir = ''
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('Electron entry with a mocked electron', () => {
  it('starts, wires IPC/window/tray/notifications, and quits cleanly', async () => {
    dir = await mkdtemp(join(tmpdir(), 'chatapp-main-'))
    process.env.CHATAPP_DATA_DIR = dir
    process.env.CHATAPP_PORT = '0'
    process.env.CHATAPP_CHANNEL = 'sandbox'
    process.env.CHATAPP_LOG_LEVEL = 'silent'
    const { CONTRACT_METHODS, ipcChannel } = await import('../../../src/shared/contract')
    await import('../../../src/main/index')
    await expect.poll(() => h.windows.length, { timeout: 10_000 }).toBe(1)

    const win = h.windows[0]
    expect(win.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false })
    expect(win.options.webPreferences.preload).toMatch(/preload[\\/]index\.cjs$/)
    expect(win.loaded).toMatch(/renderer[\\/]index\.html$/)
    expect([...h.ipcHandlers.keys()].sort()).toEqual(CONTRACT_METHODS.map(ipcChannel).sort())
    expect(h.appHandlers.has('web-contents-created')).toBe(true)
    expect(h.appHandlers.has('second-instance')).toBe(true)
    expect(h.trays[0].tooltip).toBe('Chatapp Desk — No instances')

    // A call from the window's own top frame reaches the core; events come back to the window.
    const fileUrl = (await import('node:url')).pathToFileURL(join(win.loaded, '..')).href + '/index.html'
    const event = { sender: { id: 7 }, senderFrame: { url: fileUrl, parent: null } }
    const invoke = (m: string, input: unknown) => h.ipcHandlers.get(`chatapp:rpc:${m}`)!(event, input) as Promise<any>
    const created = await invoke('instances.create', { channel: 'sandbox' })
    expect(created.ok).toBe(true)
    await invoke('instances.init', { instanceId: created.data._id })
    await invoke('pairing.sandboxScan', { instanceId: created.data._id })
    await expect.poll(() => win.sent.some(([, e]: any) => e.type === 'state' && e.state === 'CONNECTED')).toBe(true)
    expect(h.trays[0].tooltip).toBe('Chatapp Desk — 1 connected')
    expect(await invoke('apiToken.get', {}).then((r) => r.ok)).toBe(true)
    // A development run has no installation to update, and says so; About names the data folder.
    expect((await invoke('updates.status', {})).data).toMatchObject({ supported: false, reason: expect.stringMatching(/development run/) })
    expect((await invoke('app.about', {})).data).toMatchObject({ dataDir: dir })
    const foreign = await h.ipcHandlers.get('chatapp:rpc:apiToken.get')!({ sender: { id: 8 }, senderFrame: { url: fileUrl, parent: null } }, {})
    expect(foreign).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } })

    // The phone removing a connected instance raises a native notification; a customer asking for a person too.
    await invoke('handoff.settings', { instanceId: created.data._id, keyword: 'agent' })
    await invoke('sandbox.inbound', { instanceId: created.data._id, chatId: '15550001111', message: 'agent please' })
    await invoke('sandbox.removeDevice', { instanceId: created.data._id })
    await expect.poll(() => h.notifications.map((n) => n.options.title)).toEqual(['+15550001111 asks for a person', 'Chatapp Bot was logged out'])
    expect(h.notifications[0].shown).toBe(true)

    // Quit: before-quit is held until the app closed, then the process exits 0.
    const prevent = vi.fn()
    h.appHandlers.get('before-quit')!({ preventDefault: prevent })
    expect(prevent).toHaveBeenCalled()
    expect(await h.exitedP).toBe(0)
  }, 30_000)
})
