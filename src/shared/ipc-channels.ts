/**
 * The IPC channel names the preload and main agree on. No imports: the sandboxed preload bundles this
 * file, and it must stay tiny (no schema library).
 */

/** IPC channel of one contract method: each method is its own `ipcMain.handle` channel. */
export function ipcChannel(method: string): string {
  return `chatapp:rpc:${method}`
}

/** IPC channel main pushes events on. */
export const IPC_EVENT_CHANNEL = 'chatapp:event'
