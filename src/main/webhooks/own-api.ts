/**
 * Webhooks may go to loopback and LAN receivers (a receiver on the same PC or the shop's n8n box is the
 * common case), but never to this app's own HTTP API: a webhook's `requestConfig.headers` may carry an
 * `Authorization` header, and its body would then drive the API (create instances, send messages).
 * A URL names the own API when its port is the API's and its host resolves to this machine (loopback,
 * unspecified, or one of this machine's interface addresses).
 */
import { lookup } from 'node:dns/promises'
import { networkInterfaces } from 'node:os'
import ipaddr from 'ipaddr.js'

export const OWN_API_REFUSAL = "points at this app's own API; use another receiver"

export class OwnApiGuard {
  private port: number | undefined

  /** The port the API listens on (known once it listens). */
  setPort(port: number): void {
    this.port = port
  }

  /** Whether `url` names this app's own API. Never throws: an unresolvable host is not ours. */
  async targets(url: string): Promise<boolean> {
    if (this.port === undefined) return false
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return false
    }
    const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80))
    if (port !== this.port) return false
    const host = parsed.hostname.replace(/^\[|\]$/g, '')
    let addresses: string[]
    try {
      addresses = ipaddr.isValid(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address)
    } catch {
      return false
    }
    return addresses.some((a) => this.isOwn(a, port))
  }

  /**
   * Whether a connection to `address` (an IP) on `port` would reach this app's own API: the check the
   * webhook transport makes on the very address it connects to (./webhook-transport.ts), so a name
   * that resolves elsewhere when checked and here when delivered is still refused.
   */
  isOwn(address: string, port: number): boolean {
    if (this.port === undefined || port !== this.port || !ipaddr.isValid(address)) return false
    const ip = ipaddr.process(address)
    const local = new Set(Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => ipaddr.process(i.address).toString())))
    return ip.range() === 'loopback' || ip.range() === 'unspecified' || local.has(ip.toString())
  }
}
