/**
 * The UI contract over Electron IPC: one `ipcMain.handle` channel per contract method
 * (`chatapp:rpc:<method>`), each answering the {@link ContractResult} envelope (IPC drops custom error
 * properties, so errors travel as data), and core events pushed to the window on `chatapp:event`.
 *
 * Every call's sender is checked: only the app's own main frame, loaded from the app's own URL, may
 * call; anything else (another webContents, a subframe, a page navigated elsewhere) gets UNAUTHORIZED.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron'
import { CONTRACT_METHODS, ipcChannel, type ContractHandlers, type ContractResult } from '../../shared/contract'
import { dispatch } from '../ui-contract/handlers'

/** Decides whether an IPC sender may call the contract. */
export type SenderCheck = (event: IpcMainInvokeEvent) => boolean

/**
 * A sender check that accepts only the main frame of `isAppWindow`'s webContents whose URL starts
 * with one of `allowedOrigins` (the packaged `file://…/index.html` or the dev server's origin).
 */
export function appSenderCheck(isAppWindow: (webContentsId: number) => boolean, allowedOrigins: string[]): SenderCheck {
  return (event) => {
    const frame = event.senderFrame
    if (!frame || !isAppWindow(event.sender.id)) return false
    // Only the top frame: a subframe (e.g. an injected iframe) never gets the contract.
    if (frame.parent !== null) return false
    return allowedOrigins.some((origin) => frame.url.startsWith(origin))
  }
}

/**
 * Registers every contract method on `ipcMain`; returns the function that removes them. Unexpected
 * errors go to `log` and are answered as INTERNAL.
 */
export function registerIpcTransport(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, handlers: ContractHandlers, isTrusted: SenderCheck, log: (err: unknown) => void): () => void {
  for (const method of CONTRACT_METHODS) {
    ipcMain.handle(ipcChannel(method), async (event: IpcMainInvokeEvent, input: unknown): Promise<ContractResult<unknown>> => {
      if (!isTrusted(event)) {
        return { ok: false, error: { code: 'UNAUTHORIZED', message: 'This window may not call the app.' } }
      }
      return dispatch(handlers, method, input, log)
    })
  }
  return () => {
    for (const method of CONTRACT_METHODS) ipcMain.removeHandler(ipcChannel(method))
  }
}
