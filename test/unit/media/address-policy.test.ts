/** The address policy of file downloads: public unicast only, unless the owner allows more. */
import { describe, expect, it } from 'vitest'
import { addressPolicy } from '../../../src/main/media/address-policy'

describe('addressPolicy', () => {
  const strict = addressPolicy()

  it('allows public unicast addresses, v4 and v6', () => {
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) expect(strict.allows('example.com', ip), ip).toBe(true)
  })

  it('refuses loopback, private, link-local, unique-local, CGNAT, unspecified, multicast and mapped forms', () => {
    for (const ip of ['127.0.0.1', '127.9.9.9', '::1', '10.1.2.3', '172.16.0.1', '192.168.1.10', '169.254.169.254', 'fe80::1', 'fd00::1', '100.64.0.1', '0.0.0.0', '::', '224.0.0.1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
      expect(strict.allows('example.com', ip), ip).toBe(false)
    }
  })

  it('allows what the owner lists: addresses, ranges and host names', () => {
    const lan = addressPolicy(['192.168.1.0/24', '10.0.0.5', 'files.lan', 'fd12::/16'])
    expect(lan.allows('x', '192.168.1.77')).toBe(true)
    expect(lan.allows('x', '192.168.2.1')).toBe(false)
    expect(lan.allows('x', '10.0.0.5')).toBe(true)
    expect(lan.allows('x', '10.0.0.6')).toBe(false)
    expect(lan.allows('FILES.lan', '10.9.9.9')).toBe(true)
    expect(lan.allows('x', 'fd12::9')).toBe(true)
    expect(lan.allows('x', '127.0.0.1')).toBe(false)
  })

  it('refuses an allow-list entry it cannot read', () => {
    expect(() => addressPolicy(['not an address!'])).toThrow(/CHATAPP_FETCH_ALLOW/)
    expect(() => addressPolicy(['10.0.0.0/99'])).toThrow()
  })
})
