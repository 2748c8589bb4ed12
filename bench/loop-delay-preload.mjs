// Loaded with `node --import` into the server the stalls bench measures (bench/stalls-bench.ts): the
// main thread's own event-loop delay (perf_hooks.monitorEventLoopDelay, 1 ms resolution). On SIGUSR2
// it prints `LOOPDELAY <max ms> <p99 ms>` on stderr and starts a new window. The product runs
// unchanged; this only observes it.
// With it, the main thread's longest garbage collection pause and its kind (a stall's usual
// suspect): `LOOPDELAY <max ms> <p99 ms> <longest gc ms> <its kind>`.
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'

const h = monitorEventLoopDelay({ resolution: 1 })
h.enable()
const KINDS = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'young', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'full', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak' }
/** Why V8 collected (perf_hooks' GC flags), named as they are there. */
const FLAGS = Object.entries(constants).filter(([k]) => k.startsWith('NODE_PERFORMANCE_GC_FLAGS_') && k !== 'NODE_PERFORMANCE_GC_FLAGS_NO')
const why = (flags) => FLAGS.filter(([, bit]) => flags & bit).map(([k]) => k.slice('NODE_PERFORMANCE_GC_FLAGS_'.length).toLowerCase()).join('+')
let gc = { ms: 0, kind: '-' }
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.duration <= gc.ms) continue
    const flags = why(e.detail?.flags ?? 0)
    gc = { ms: e.duration, kind: `${KINDS[e.detail?.kind] ?? String(e.detail?.kind)}${flags ? `,${flags}` : ''}` }
  }
}).observe({ entryTypes: ['gc'] })
process.on('SIGUSR2', () => {
  process.stderr.write(`LOOPDELAY ${(h.max / 1e6).toFixed(1)} ${(h.percentile(99) / 1e6).toFixed(1)} ${gc.ms.toFixed(1)} ${gc.kind}\n`)
  h.reset()
  gc = { ms: 0, kind: '-' }
})
