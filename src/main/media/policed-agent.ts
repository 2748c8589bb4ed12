/**
 * The undici dispatcher that enforces the {@link AddressPolicy} of ./address-policy.ts on every
 * connection (names through a checked DNS lookup, at every redirect hop, which also defeats DNS
 * rebinding; IP literals before connecting). Apart from the policy so that undici loads with the first
 * download, not at start (docs/benchmarks.md "Start time and idle memory").
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { isIP } from 'node:net'
import { Agent, buildConnector } from 'undici'
import { BlockedAddressError, type AddressPolicy } from './address-policy'

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * An undici dispatcher whose every connection is checked against `policy`: names through a DNS lookup
 * that refuses a blocked answer, IP literals before connecting.
 */
export function policedAgent(policy: AddressPolicy): Agent {
  const lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, [])
      const blocked = addresses.find((a) => !policy.allows(hostname, a.address))
      if (blocked) return callback(new BlockedAddressError(hostname, blocked.address), [])
      if (options.all) return callback(null, addresses)
      callback(null, addresses[0]!.address, addresses[0]!.family)
    })
  }
  const connect = buildConnector({ lookup })
  return new Agent({
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '')
      if (isIP(host) && !policy.allows(host, host)) return callback(new BlockedAddressError(host, host), null)
      connect(options, callback)
    }
  })
}
