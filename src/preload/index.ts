/**
 * The preload (sandboxed, built as CommonJS): exposes the UI contract to the renderer as
 * `window.chatappIpc` through contextBridge — nothing else of Electron or Node. Only contract method
 * names are forwarded; the renderer cannot invoke arbitrary IPC channels.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { CONTRACT_METHODS, IPC_EVENT_CHANNEL, ipcChannel, type ContractEvent, type ContractMethod, type PreloadBridge, type ContractResult } from '../shared/contract'

const methods = new Set<string>(CONTRACT_METHODS)

const bridge: PreloadBridge = {
  async call(method, input) {
    if (!methods.has(method)) return { ok: false, error: { code: 'NOT_FOUND', message: `No operation ${method}` } }
    return ipcRenderer.invoke(ipcChannel(method as ContractMethod), input) as Promise<ContractResult<unknown>>
  },
  onEvent(listener) {
    const wrapped = (_e: IpcRendererEvent, event: ContractEvent) => listener(event)
    ipcRenderer.on(IPC_EVENT_CHANNEL, wrapped)
    return () => ipcRenderer.removeListener(IPC_EVENT_CHANNEL, wrapped)
  }
}

contextBridge.exposeInMainWorld('chatappIpc', bridge)
