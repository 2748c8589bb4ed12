/**
 * One client websocket on the protocol test server (test code): runs the Noise handshake
 * ({@link NoiseServer}), then exchanges Baileys binary nodes. Incoming `iq` results/errors settle the
 * server's own queries ({@link query}); every other node goes to the `onNode` handler, in order.
 */
import { decodeBinaryNode, encodeBinaryNode, proto, type BinaryNode } from 'baileys'
import { NoiseServer, type ServerIdentity } from './noise'

/** The part of a `ws` WebSocket used here. */
export interface WsLike {
  readyState: number
  send(data: Buffer): void
  close(code?: number): void
  terminate(): void
  on(event: 'message', fn: (data: Buffer) => void): void
  on(event: 'close', fn: () => void): void
  on(event: 'error', fn: (err: Error) => void): void
}

export interface ConnectionHandlers {
  /** The handshake finished: the client's `ClientPayload` (registration or login). */
  onLogin(conn: WaConnection, payload: proto.ClientPayload): void
  onNode(conn: WaConnection, node: BinaryNode): void | Promise<void>
  onClose(conn: WaConnection): void
  debug?: (msg: string) => void
}

let nextId = 1

export class WaConnection {
  readonly id = nextId++
  private readonly noise: NoiseServer
  private stage: 'hello' | 'finish' | 'transport' = 'hello'
  private readonly waiters = new Map<string, { resolve: (n: BinaryNode) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>()
  /** Frames are decoded one after another, in order. */
  private chain: Promise<void> = Promise.resolve()
  closed = false
  /**
   * The server began ending this connection (close() or kill()): from then on it no longer counts as
   * live, and when it closes the server, not the client, ended it.
   */
  endedByServer = false
  payload: proto.ClientPayload | null = null
  /**
   * The client's Noise static public key (32 bytes), once the handshake finished: Baileys' static is
   * `creds.noiseKey` on every connection (lib/Socket/socket.js validateConnection →
   * lib/Utils/noise-handler.js processHandshake), the key a pairing registers with the server (the
   * QR's second field; `companion_server_auth_key_pub` in a pairing by code).
   */
  noiseKey: Buffer | null = null

  constructor(
    private readonly ws: WsLike,
    identity: ServerIdentity,
    private readonly handlers: ConnectionHandlers
  ) {
    this.noise = new NoiseServer(identity)
    ws.on('message', (data) => {
      this.chain = this.chain.then(() => this.onData(Buffer.from(data))).catch((err) => {
        handlers.debug?.(`conn ${this.id}: ${String(err)}`)
        this.kill()
      })
    })
    ws.on('close', () => {
      this.closed = true
      for (const w of this.waiters.values()) {
        clearTimeout(w.timer)
        w.reject(new Error('the client closed the connection'))
      }
      this.waiters.clear()
      handlers.onClose(this)
    })
    ws.on('error', () => undefined)
  }

  /** Sends a node (after the handshake). */
  send(n: BinaryNode): void {
    if (this.closed || this.ws.readyState !== 1) return
    this.handlers.debug?.(`conn ${this.id} >> ${describe(n)}`)
    this.ws.send(this.noise.frame(encodeBinaryNode(n)))
  }

  /** Sends an iq and waits for the client's answer with the same id. */
  query(iq: BinaryNode, timeoutMs = 5000): Promise<BinaryNode> {
    const id = iq.attrs.id
    if (!id) throw new Error('query without id')
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(id)
        reject(new Error(`no answer to ${describe(iq)}`))
      }, timeoutMs)
      this.waiters.set(id, {
        resolve: (n) => {
          clearTimeout(timer)
          resolve(n)
        },
        reject,
        timer
      })
      this.send(iq)
    })
  }

  /** Closes the websocket (the client sees a closed connection). */
  close(): void {
    if (this.closed) return
    this.endedByServer = true
    this.ws.close()
  }

  /** Cuts the websocket with no close handshake (a network loss, for the client). */
  kill(): void {
    if (!this.closed) this.endedByServer = true
    this.closed = true
    this.ws.terminate()
  }

  private async onData(data: Buffer): Promise<void> {
    for (const frame of this.noise.push(data)) {
      if (this.stage === 'hello') {
        this.ws.send(this.noise.serverHello(frame))
        this.stage = 'finish'
      } else if (this.stage === 'finish') {
        const { payload, noiseKey } = this.noise.clientFinish(frame)
        this.stage = 'transport'
        this.payload = payload
        this.noiseKey = noiseKey
        this.handlers.onLogin(this, payload)
      } else {
        const n = await decodeBinaryNode(frame)
        this.handlers.debug?.(`conn ${this.id} << ${describe(n)}`)
        const waiter = n.tag === 'iq' && (n.attrs.type === 'result' || n.attrs.type === 'error') ? this.waiters.get(n.attrs.id ?? '') : undefined
        if (waiter) {
          this.waiters.delete(n.attrs.id!)
          waiter.resolve(n)
        } else {
          await this.handlers.onNode(this, n)
        }
      }
    }
  }
}

/** A short description of a node for debug output: tag, attrs, child tags. */
export function describe(n: BinaryNode): string {
  const kids = Array.isArray(n.content) ? `[${n.content.map((c) => c.tag).join(',')}]` : n.content ? `(${n.content.length}b)` : ''
  return `<${n.tag} ${JSON.stringify(n.attrs)}>${kids}`
}
