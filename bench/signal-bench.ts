/**
 * Signal session record size (docs/benchmarks.md "Signal session record size"): one contact, turn after turn (the contact writes, the
 * product answers), through Baileys' own signal repository (test/support/signal-conversation.ts).
 * The record's bytes (JSON, as the auth store writes it) after 100 and after 1,500 turns, with the
 * product's auth store (at most 5 receiving chains per session) and with a bare key store (libsignal
 * 6.0.0 as it is: a receiving chain added per turn, none dropped). Target: ≤ 1.2× at 1,500 vs 100.
 */
import { openSignalConversation } from '../test/support/signal-conversation'

const CHECKPOINTS = [100, 1500]

async function sizes(plain: boolean): Promise<number[]> {
  const conv = await openSignalConversation({ plain })
  const out: number[] = []
  try {
    let turns = 0
    for (const at of CHECKPOINTS) {
      while (turns < at) {
        await conv.turn()
        turns++
      }
      out.push(await conv.recordBytes())
    }
  } finally {
    await conv.close()
  }
  return out
}

/** Runs the benchmark; prints a markdown table. */
export async function runSignalBench(): Promise<void> {
  const plain = await sizes(true)
  const product = await sizes(false)
  console.log('| key store | record bytes after 100 turns | after 1,500 turns | ratio (target ≤ 1.2×) |')
  console.log('| --- | ---: | ---: | ---: |')
  console.log(`| libsignal as is (bare store, before) | ${plain[0]} | ${plain[1]} | ${(plain[1]! / plain[0]!).toFixed(2)}× |`)
  console.log(`| product auth store (5 receiving chains kept) | ${product[0]} | ${product[1]} | ${(product[1]! / product[0]!).toFixed(2)}× |`)
}
