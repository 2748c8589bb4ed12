/**
 * Electron entry: a thin shell around the same core and HTTP API as the headless server.
 *
 * - one instance (a second launch focuses the first window),
 * - the core + local HTTP API started with the app (`startApp`, CHATAPP_* variables still apply;
 *   the data dir defaults to Electron's userData, which `defaultDataDir` already computes),
 * - the UI contract over IPC (sender-checked) and its events pushed to the window,
 * - a window with saved size/position and secure defaults (see ./electron/security.ts),
 * - a tray icon with a status summary, native notifications when an instance disconnects or is
 *   logged out, optional start at login (tray menu),
 * - updates (./electron/desktop-updates.ts): checked soon after start and daily, installed on the
 *   owner's "Restart to update", at quit or unattended at night, never while a broadcast or survey runs,
 * - clean quit: the API stops, sessions close and every write lands before the process exits (and
 *   before a downloaded update installs).
 */
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BrowserWindow, Notification, app, dialog, ipcMain, screen, session, shell } from 'electron'
import { startApp, type RunningApp } from './app'
import { readServeConfig } from './config'
import { createHandlers } from './ui-contract/handlers'
import { subscribeContractEvents } from './ui-contract/event-bridge'
import { IPC_EVENT_CHANNEL, type ContractEvent } from '../shared/contract'
import { CONTENT_SECURITY_POLICY, DEV_CONTENT_SECURITY_POLICY } from '../shared/csp'
import { appSenderCheck, registerIpcTransport } from './electron/ipc-transport'
import { hardenSession, hardenWebContents, secureWebPreferences } from './electron/security'
import { fitBounds, loadWindowState, saveWindowState, windowStateFile } from './electron/window-state'
import { handoffNotice, stateNotice, type Notice } from './electron/status-summary'
import { createTray } from './electron/tray'
import { startDesktopUpdates } from './electron/desktop-updates'

const here = fileURLToPath(new URL('.', import.meta.url))
const PRELOAD = join(here, '../preload/index.cjs')
const RENDERER_DIR = join(here, '../renderer')
/** electron-vite's dev server in `npm run dev`; the built files otherwise. */
const DEV_URL = process.env.ELECTRON_RENDERER_URL
const RESOURCES = app.isPackaged ? process.resourcesPath : join(here, '../../resources')

let win: BrowserWindow | null = null
let running: RunningApp | null = null

function appOrigins(): string[] {
  return DEV_URL ? [new URL(DEV_URL).origin + '/'] : [pathToFileURL(RENDERER_DIR).href + '/']
}
const isAppUrl = (url: string) => appOrigins().some((o) => url.startsWith(o))

function showWindow(): void {
  if (!win) return createWindow()
  if (win.isMinimized()) win.restore()
  win.show()
  win.focus()
}

function createWindow(): void {
  const stateFile = windowStateFile(app.getPath('userData'))
  const bounds = fitBounds(loadWindowState(stateFile), screen.getAllDisplays().map((d) => d.workArea))
  win = new BrowserWindow({
    ...bounds,
    minWidth: 800,
    minHeight: 560,
    show: false,
    title: 'Chatapp Desk',
    icon: join(RESOURCES, 'icon.png'),
    webPreferences: secureWebPreferences(PRELOAD)
  })
  if (bounds.maximized) win.maximize()
  // Navigation and new-window rules come from the app-wide 'web-contents-created' hook in main().
  const save = () => win && !win.isDestroyed() && saveWindowState(stateFile, { ...win.getNormalBounds(), maximized: win.isMaximized() })
  win.on('close', save)
  win.on('closed', () => (win = null))
  win.once('ready-to-show', () => win?.show())
  if (DEV_URL) void win.loadURL(DEV_URL)
  else void win.loadFile(join(RENDERER_DIR, 'index.html'))
}

async function main(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit()
    return
  }
  app.on('second-instance', showWindow)
  await app.whenReady()
  hardenSession(session.defaultSession, DEV_URL ? DEV_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY)
  app.on('web-contents-created', (_e, contents) => hardenWebContents(contents, isAppUrl, (url) => void shell.openExternal(url)))

  const config = readServeConfig()
  try {
    running = await startApp(config, {
      // The core logged why; the owner is told, and the app quits cleanly (what is stored stays).
      onDatabaseFailed: (err) => {
        dialog.showErrorBox('Chatapp Desk must stop', `The database cannot be used any more: ${err.message} Start the app again; if this repeats, see the log.`)
        app.quit()
      }
    })
  } catch (err) {
    dialog.showErrorBox('Chatapp Desk could not start', err instanceof Error ? err.message : String(err))
    app.exit(1)
    return
  }
  const core = running.core
  const url = running.url
  const notify = (notice: Notice | null | undefined) => {
    if (!notice || !Notification.isSupported()) return
    const n = new Notification({ title: notice.title, body: notice.body, icon: join(RESOURCES, 'icon.png') })
    n.on('click', showWindow)
    n.show()
  }
  const toWindow = (event: ContractEvent) => {
    if (win && !win.isDestroyed()) win.webContents.send(IPC_EVENT_CHANNEL, event)
  }
  const updates = await startDesktopUpdates({ core, logger: core.logger.child({ part: 'updates' }), notify })
  updates.port.subscribe((status) => toWindow({ type: 'update', status }))
  const handlers = createHandlers(core, { baseUrl: () => url, mode: 'desktop', defaultChannel: config.channel, dataDir: config.dataDir, updates: updates.port })
  registerIpcTransport(ipcMain, handlers, appSenderCheck((id) => win?.webContents.id === id, appOrigins()), (err) => core.logger.error({ err }, 'IPC call failed'))
  subscribeContractEvents(core, toWindow)
  const botName = (instanceId: string) => core.instances.list().find((i) => i._id === instanceId)?.settings.bot_name
  core.events.on('state', (change) => {
    const name = botName(change.instanceId)
    notify(name === undefined ? null : stateNotice(change, name))
  })
  core.events.on('handoff', ({ instanceId, pause }) => notify(handoffNotice(pause, botName(instanceId) ?? 'The bot')))
  const removeTray = createTray(core, { iconPath: join(RESOURCES, process.platform === 'darwin' ? 'tray.png' : 'tray@2x.png'), show: showWindow, quit: () => app.quit() })
  createWindow()

  // Closing the window keeps the bots running in the tray; Quit (tray or Cmd+Q) stops everything.
  app.on('window-all-closed', () => {})
  app.on('activate', showWindow)
  let quitting = false
  app.on('before-quit', (event) => {
    if (quitting) return
    quitting = true
    event.preventDefault()
    removeTray()
    updates.stop()
    void (running?.close() ?? Promise.resolve())
      .then(() => updates.installOnQuit())
      .catch((err) => core.logger.error({ err }, 'shutdown failed'))
      .finally(() => app.exit(0))
  })
}

void main()
