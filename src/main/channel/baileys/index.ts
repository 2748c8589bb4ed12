/**
 * The Baileys channel (docs/design.md §5): factories for the session manager and the offline test seam.
 *
 * Test seam, for tests only (docs/design.md §5 "Testing the real channel offline"; unset in normal use):
 * `CHATAPP_WA_WS_URL` becomes the socket's `waWebSocketUrl`, and `CHATAPP_WA_ROOT_KEY` (base64 of a
 * Curve25519 public key, 32 bytes or 33 with the 0x05 type byte) replaces the library's
 * `WA_CERT_DETAILS.PUBLIC_KEY`, the root the server's Noise certificate chain is checked against
 * (lib/Utils/noise-handler.js). That object is process-wide: setting it affects every socket of the
 * process, which is why it is only ever set from the environment at start.
 */
import { WA_CERT_DETAILS } from 'baileys'
import type { ChannelContext, ChannelFactory, ChannelStore, WaWebVersionMemory } from '../types'
import { BaileysSession, type BaileysChannelOptions } from './baileys-session'
import { libraryVersionFetcher, WaVersionSource } from './wa-version'

export { BaileysSession, type BaileysChannelOptions } from './baileys-session'

/**
 * A factory whose sessions share `opts` and one WA Web version source: the current version is
 * fetched once for every instance of the app, the last good one kept in the sessions' store
 * (`ctx.store.waWebVersion`, wa-version.ts).
 */
export function createBaileysChannel(opts: BaileysChannelOptions = {}): ChannelFactory {
  let versions = opts.versions
  // The stores of the latest session made: a restore reopens them, and the factory outlives it.
  let store: ChannelStore
  const memory: WaWebVersionMemory = {
    waWebVersion: () => store.waWebVersion.waWebVersion(),
    setWaWebVersion: (record) => store.waWebVersion.setWaWebVersion(record)
  }
  return (ctx: ChannelContext) => {
    store = ctx.store
    versions ??= new WaVersionSource({
      fetch: opts.fetchVersion === undefined ? libraryVersionFetcher() : opts.fetchVersion,
      bundled: opts.version,
      memory,
      logger: ctx.logger
    })
    return new BaileysSession(ctx, { ...opts, versions })
  }
}

/** Makes Baileys accept a test server's certificate chain signed by `key` (tests only). */
export function applyTestRootKey(key: Buffer): void {
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(key.length === 33 ? key.subarray(1) : key)
}
