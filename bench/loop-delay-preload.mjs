// Loaded with `node --import` into the server the stalls bench measures (bench/stalls-bench.ts): the
// main thread's own event-loop delay (perf_hooks.monitorEventLoopDelay, 1 ms resolution). On SIGUSR2
// it prints `LOOPDELAY <max ms> <p99 ms>` on stderr and starts a new window. The product runs
// unchanged; this only observes it.
import { monitorEventLoopDelay } from 'node:perf_hooks'

const h = monitorEventLoopDelay({ resolution: 1 })
h.enable()
process.on('SIGUSR2', () => {
  process.stderr.write(`LOOPDELAY ${(h.max / 1e6).toFixed(1)} ${(h.percentile(99) / 1e6).toFixed(1)}\n`)
  h.reset()
})
