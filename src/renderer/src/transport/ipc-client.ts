/** The UI contract over Electron IPC, through the preload's `window.chatappIpc` bridge. */
import { ContractError, type ContractClient, type PreloadBridge } from '../../../shared/contract'

export function createIpcClient(bridge: PreloadBridge): ContractClient {
  return {
    async call(method, input) {
      const result = await bridge.call(method, input)
      if (result.ok) return result.data as never
      throw new ContractError(result.error)
    },
    subscribe(listener) {
      return bridge.onEvent(listener)
    }
  }
}

declare global {
  interface Window {
    /** Set by the preload (src/preload/index.ts) inside the Electron window only. */
    chatappIpc?: PreloadBridge
  }
}

/** The preload bridge when running inside the Electron window. */
export function preloadBridge(): PreloadBridge | undefined {
  return window.chatappIpc
}
