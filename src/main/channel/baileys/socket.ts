/**
 * The part of a Baileys socket (`makeWASocket`, lib/Socket/index.js) the session uses, and the
 * factory seam: production passes the library's `makeWASocket`; tests pass a fake socket that
 * emits the library's events (`connection.update`, `creds.update`, `messages.upsert`) with payloads
 * typed by lib/Types/Events.d.ts.
 */
import type { SocketKeyStore } from './sender-key-memory'
import { makeWASocket, type BaileysEventEmitter, type BinaryNode, type AuthenticationCreds, type UserFacingSocketConfig, type WASocket } from 'baileys'

export type BaileysSocket = Pick<
  WASocket,
  'end' | 'logout' | 'sendMessage' | 'sendPresenceUpdate' | 'readMessages' | 'groupMetadata' | 'groupParticipantsUpdate' | 'updateMediaMessage' | 'query' | 'onWhatsApp' | 'fetchMessageHistory' | 'executeUSyncQuery'
> & {
  /** The creds, and the key store the socket was given with rc14's key transactions added (lib/Utils/auth-utils.js). */
  authState: { creds: AuthenticationCreds; keys: SocketKeyStore }
  /** The library's Signal store; its LID mapping names the number behind a LID and back (lib/Signal/lid-mapping.js). */
  signalRepository: {
    lidMapping: { getPNForLID(lid: string): Promise<string | null | undefined>; getLIDForPN(pn: string): Promise<string | null | undefined> }
    /** Deletes the 1:1 sessions with these device JIDs (lib/Signal/libsignal.js). */
    deleteSession(jids: string[]): Promise<void>
  }
  ev: BaileysEventEmitter
  readonly user: WASocket['user']
  /** The websocket: node events (`CB:<tag>,<attr>:<value>`) for stanzas the library does not handle. */
  ws: {
    on(event: string, listener: (node: BinaryNode) => unknown): unknown
    off(event: string, listener: (node: BinaryNode) => unknown): unknown
    /** The listeners of a node event (Node's EventEmitter), e.g. the library's own `CB:message` one. */
    listeners(event: string): unknown[]
  }
  /** Sends a stanza as it is (lib/Socket/socket.js sendNode); rejects when the connection is closed. */
  sendNode(node: BinaryNode): Promise<void>
}

export type SocketFactory = (config: UserFacingSocketConfig) => BaileysSocket

export const defaultSocketFactory: SocketFactory = (config) => makeWASocket(config)
