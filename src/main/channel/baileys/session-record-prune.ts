/**
 * Bounds a Signal session record (docs/benchmarks.md "Signal session record size"). libsignal 6.0.0 (the `libsignal` package Baileys
 * uses; src/session_cipher.js `calculateRatchet`) adds a receiving chain at every step of the
 * Double Ratchet — each time the other side starts a new turn of the conversation — and never deletes
 * one, so a record grew ~105 bytes per turn (15.5 KB → 152 KB after 1,500 turns with one contact) and
 * every reply rewrote it whole. The reference Signal libraries keep at most 5 receiving chains per
 * session (libsignal-protocol-java `SessionState.addReceiverChain`: "if more than 5, remove the
 * oldest"): an old chain is only needed for messages that arrive late from an earlier turn.
 *
 * Works on the serialized form Baileys stores (`SessionRecord.serialize()`: `{ _sessions: { [baseKey]:
 * { currentRatchet, _chains: { [ratchetKey]: { chainType, chainKey, messageKeys } } } }, version }`),
 * where `_chains` keeps insertion order, oldest first. The current receiving chain (keyed by
 * `currentRatchet.lastRemoteEphemeralKey`) and every sending chain are always kept.
 */

/** Receiving chains kept per session, the current one included (as the reference libraries). */
export const MAX_RECEIVING_CHAINS = 5

const RECEIVING = 2

interface SerializedChain {
  chainType?: number
}
interface SerializedEntry {
  currentRatchet?: { lastRemoteEphemeralKey?: string }
  _chains?: Record<string, SerializedChain>
}

/**
 * Drops the oldest receiving chains of each session in a serialized record beyond
 * {@link MAX_RECEIVING_CHAINS}, in place. Answers how many were dropped. Anything that is not a
 * serialized record (another format, null) is left alone and answers 0.
 */
export function pruneSessionRecord(record: unknown): number {
  const sessions = (record as { _sessions?: Record<string, SerializedEntry> } | null)?._sessions
  if (!sessions || typeof sessions !== 'object') return 0
  let dropped = 0
  for (const entry of Object.values(sessions)) {
    const chains = entry?._chains
    if (!chains || typeof chains !== 'object') continue
    const current = entry.currentRatchet?.lastRemoteEphemeralKey
    const receiving = Object.keys(chains).filter((k) => chains[k]?.chainType === RECEIVING && k !== current)
    // The current chain counts toward the five.
    const keep = MAX_RECEIVING_CHAINS - (current !== undefined && chains[current] ? 1 : 0)
    for (const key of receiving.slice(0, Math.max(0, receiving.length - keep))) {
      delete chains[key]
      dropped++
    }
  }
  return dropped
}
