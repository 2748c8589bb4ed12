/**
 * The part of a Baileys socket (`makeWASocket`, lib/Socket/index.js) the session uses, and the
 * factory seam: production passes the library's `makeWASocket`; tests pass a fake socket that
 * emits the library's events (`connection.update`, `creds.update`, `messages.upsert`) with payloads
 * typed by lib/Types/Events.d.ts.
 */
import { makeWASocket, type BaileysEventEmitter, type BinaryNode, type AuthenticationCreds, type UserFacingSocketConfig, type WASocket } from 'baileys'

export type BaileysSocket = Pick<
  WASocket,
  'end' | 'logout' | 'sendMessage' | 'sendPresenceUpdate' | 'readMessages' | 'groupMetadata' | 'groupParticipantsUpdate' | 'updateMediaMessage' | 'query' | 'onWhatsApp' | 'fetchMessageHistory'
> & {
  authState: { creds: AuthenticationCreds }
  /** The library's Signal store; its LID mapping names the number behind a LID (lib/Signal/lid-mapping.js). */
  signalRepository: { lidMapping: { getPNForLID(lid: string): Promise<string | null | undefined> } }
  ev: BaileysEventEmitter
  readonly user: WASocket['user']
  /** The websocket: node events (`CB:<tag>,<attr>:<value>`) for stanzas the library does not handle. */
  ws: {
    on(event: string, listener: (node: BinaryNode) => void): unknown
    off(event: string, listener: (node: BinaryNode) => void): unknown
  }
}

export type SocketFactory = (config: UserFacingSocketConfig) => BaileysSocket

export const defaultSocketFactory: SocketFactory = (config) => makeWASocket(config)
