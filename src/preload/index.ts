/**
 * The preload (sandboxed, built as CommonJS): exposes the UI contract to the renderer as
 * `window.chatappIpc` through contextBridge — nothing else of Electron or Node. Only contract method
 * names are forwarded (a list generated at build time from the operation table, so the bundle holds
 * no schemas); the renderer cannot invoke arbitrary IPC channels.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import contractMethods from 'virtual:contract-methods'
import type { ContractEvent, PreloadBridge, ContractResult } from '../shared/contract'
import { IPC_EVENT_CHANNEL, ipcChannel } from '../shared/ipc-channels'

const methods = new Set<string>(contractMethods)

const bridge: PreloadBridge = {
  async call(method, input) {
    if (!methods.has(method)) return { ok: false, error: { code: 'NOT_FOUND', message: `No operation ${method}` } }
    return ipcRenderer.invoke(ipcChannel(method), input) as Promise<ContractResult<unknown>>
  },
  onEvent(listener) {
    const wrapped = (_e: IpcRendererEvent, event: ContractEvent) => listener(event)
    ipcRenderer.on(IPC_EVENT_CHANNEL, wrapped)
    return () => ipcRenderer.removeListener(IPC_EVENT_CHANNEL, wrapped)
  }
}

contextBridge.exposeInMainWorld('chatappIpc', bridge)
