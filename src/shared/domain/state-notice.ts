/**
 * Pure: when a connection change needs the owner (a desktop notification in the app, a banner in the
 * UI): a working link lost, or the device logged out. Shared by the Electron shell and the renderer.
 */

/** The state reason of a logout the owner asked for here (not the phone or WhatsApp): nobody needs telling. */
export const OWN_LOGOUT_REASON = 'logged out'

export interface Notice {
  title: string
  body: string
}

/**
 * The notification for a state change, or null. Only losses of a working link notify: CONNECTED →
 * DISCONNECTED/CONNECTING (connection lost; it reconnects by itself) and any → LOGGED_OUT (the phone
 * removed the device; it needs a new scan). What the owner did here does not notify: a stop or shut
 * down (`reason` stopped) and a logout or delete (`reason` exactly "logged out"; WhatsApp's logouts say
 * "logged out by WhatsApp: …").
 */
export function stateNotice(change: { state: string; previous: string; reason?: string }, botName: string): Notice | null {
  if (change.reason === 'stopped' || change.reason === OWN_LOGOUT_REASON) return null
  if (change.state === 'LOGGED_OUT' && change.previous !== 'LOGGED_OUT') {
    return { title: `${botName} was logged out`, body: 'The device is no longer linked. Open Chatapp Desk and pair it again.' }
  }
  if (change.previous === 'CONNECTED' && (change.state === 'DISCONNECTED' || change.state === 'CONNECTING')) {
    return { title: `${botName} disconnected`, body: change.reason ? `Connection lost (${change.reason}). Reconnecting…` : 'Connection lost. Reconnecting…' }
  }
  return null
}
