/**
 * Stand-in for the `electron` module in tests: the real package downloads its binary on first
 * import, which this machine cannot do. Tests of the Electron shell replace pieces with vi.mock.
 */
const handlers = new Map<string, (...args: unknown[]) => unknown>()

export const ipcMain = {
  handle: (channel: string, fn: (...args: unknown[]) => unknown) => void handlers.set(channel, fn),
  removeHandler: (channel: string) => void handlers.delete(channel),
  /** Test access to what was registered. */
  _handlers: handlers
}
export const app = {
  getPath: (_name: string) => '/tmp/chatapp-electron-mock',
  getVersion: () => '0.0.0-test',
  whenReady: () => Promise.resolve(),
  on: () => app,
  quit: () => {},
  requestSingleInstanceLock: () => true
}
export const contextBridge = { exposeInMainWorld: () => {} }
export const ipcRenderer = { invoke: async () => undefined, on: () => {}, removeListener: () => {} }
export class BrowserWindow {}
export default { ipcMain, app, contextBridge, ipcRenderer, BrowserWindow }
