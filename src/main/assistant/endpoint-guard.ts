/**
 * Where the assistant may send its calls (docs/assistant.md "Set-up", "Privacy"). A model on the
 * shop's own PC or LAN is the point of a local assistant (Ollama, LM Studio, llama.cpp's server:
 * customer data never leaves the building), so loopback and private addresses are allowed by design —
 * unlike fetched files (../media/address-policy.ts), which refuse them unless the owner lists them.
 * The one address refused is this app's own API port: the endpoint's key goes out as a Bearer token and
 * the calls are POSTs, so pointing it at ourselves would have the app drive its own API. Checked when
 * the address is saved (a 400) and again on every connection (a name that later resolves to this
 * machine), as webhooks are (../webhooks/own-api.ts).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { isIP } from 'node:net'
import { Agent, buildConnector } from 'undici'
import { invalid } from '../errors'
import { OwnApiGuard } from '../webhooks/own-api'

/** The 400's message on `base_url` (the webhooks' own says "use another receiver"). */
export const OWN_API_ENDPOINT_REFUSAL = "points at this app's own API; enter the address of the model's server (e.g. http://127.0.0.1:11434/v1 for Ollama)"

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/** A connection refused because it would reach this app's own API. */
export class OwnApiConnectionError extends Error {
  constructor(host: string, port: number) {
    super(`${host}:${port} is this app's own API; the assistant's endpoint must be another server`)
    this.name = 'OwnApiConnectionError'
  }
}

export class EndpointGuard {
  private readonly own = new OwnApiGuard()
  private agent: Agent | null = null

  /** The port the app's API listens on (known once it listens). */
  setOwnApiPort(port: number): void {
    this.own.setPort(port)
  }

  /** Throws a 400 on `base_url` when `url` names this app's own API. */
  async check(url: string): Promise<void> {
    if (url && (await this.own.targets(url))) throw invalid('base_url', OWN_API_ENDPOINT_REFUSAL)
  }

  /**
   * The dispatcher of every model call: an undici Agent whose connections refuse this app's own API
   * (names through a checked DNS lookup, IP literals before connecting). Made once and kept (its
   * connections are pooled: a local model answers many calls).
   */
  dispatcher(): Agent {
    if (this.agent) return this.agent
    const own = this.own
    // One connector per port (it keeps TLS sessions); the lookup needs the port to judge an address.
    const connectors = new Map<number, buildConnector.connector>()
    const connector = (port: number) => {
      let c = connectors.get(port)
      if (!c) connectors.set(port, (c = make(port)))
      return c
    }
    const make = (port: number) =>
      buildConnector({
        lookup: (hostname: string, options: LookupOptions, callback: LookupCallback) => {
          dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
            if (err) return callback(err, [])
            if (addresses.some((a) => own.isOwn(a.address, port))) return callback(new OwnApiConnectionError(hostname, port), [])
            if (options.all) return callback(null, addresses)
            callback(null, addresses[0]!.address, addresses[0]!.family)
          })
        }
      })
    this.agent = new Agent({
      connect: (options, callback) => {
        const host = options.hostname.replace(/^\[|\]$/g, '')
        const port = Number(options.port || (options.protocol === 'https:' ? 443 : 80))
        if (isIP(host) && own.isOwn(host, port)) return callback(new OwnApiConnectionError(host, port), null)
        connector(port)(options, callback)
      }
    })
    return this.agent
  }

  /** Closes the pooled connections. */
  async close(): Promise<void> {
    await this.agent?.close()
    this.agent = null
  }
}
