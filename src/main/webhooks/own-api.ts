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
    return addresses.some((a) => isThisMachine(a))
  }

  /**
   * Whether a connection to `address` (an IP) on `port` reaches this app's own API: checked when
   * each connection is made (a name that resolves elsewhere later, DNS rebinding), where
   * {@link targets} checks a URL when it is saved.
   */
  isOwnAddress(address: string, port: number): boolean {
    return this.port !== undefined && port === this.port && ipaddr.isValid(address) && isThisMachine(address)
  }
}

/** Whether `address` is this machine: loopback, unspecified, or one of its interfaces' addresses. */
function isThisMachine(address: string): boolean {
  const ip = ipaddr.process(address)
  if (ip.range() === 'loopback' || ip.range() === 'unspecified') return true
  const local = new Set(Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => ipaddr.process(i.address).toString())))
  return local.has(ip.toString())
}
