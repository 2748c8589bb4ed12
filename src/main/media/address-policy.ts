/**
 * Which network addresses the app may fetch files from (docs/design.md §6 fileurl and MediaButton).
 * A file URL comes from whoever calls the API — think of a web form that passes a customer's image URL —
 * so by default only public unicast addresses are reached: loopback, private (RFC 1918), link-local,
 * unique-local (fc00::/7), carrier-grade NAT, multicast, unspecified and reserved ranges are refused
 * (OWASP "Server Side Request Forgery Prevention": block by resolved address, not by name). The check
 * runs on the address each connection is made to — every redirect hop opens its own connection — so a
 * redirect to an internal host and a DNS name that later resolves inside (rebinding) are both refused.
 * An owner who serves files on the LAN allows those addresses (`CHATAPP_FETCH_ALLOW`: addresses, CIDR
 * ranges or host names).
 */
import ipaddr from 'ipaddr.js'

/** The fetch was refused by the address policy (the message names the host and the address). */
export class BlockedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string
  ) {
    super(`${host} is a private or local address (${address}); files on it are only fetched when CHATAPP_FETCH_ALLOW lists it`)
    this.name = 'BlockedAddressError'
  }
}

export interface AddressPolicy {
  /** Whether a connection to `address` (an IP) for `host` (as named in the URL) may be made. */
  allows(host: string, address: string): boolean
}

/**
 * The policy: public unicast addresses, plus what `allow` lists (IPs, CIDR ranges such as
 * `192.168.1.0/24`, or host names). Throws on an allow-list entry that is none of these.
 */
export function addressPolicy(allow: readonly string[] = []): AddressPolicy {
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = []
  const hosts = new Set<string>()
  for (const raw of allow.map((e) => e.trim()).filter(Boolean)) {
    if (raw.includes('/')) ranges.push(ipaddr.parseCIDR(raw))
    else if (ipaddr.isValid(raw)) {
      const ip = ipaddr.parse(raw)
      ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128])
    } else if (/^[a-z0-9.-]+$/i.test(raw)) hosts.add(raw.toLowerCase())
    else throw new Error(`CHATAPP_FETCH_ALLOW: "${raw}" is not an address, a CIDR range or a host name`)
  }
  return {
    allows(host, address) {
      // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
      const ip = ipaddr.process(address)
      if (ip.range() === 'unicast') return true
      if (hosts.has(host.toLowerCase())) return true
      return ranges.some(([base, bits]) => base.kind() === ip.kind() && ip.match(base, bits))
    }
  }
}
