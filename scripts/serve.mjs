/** `npm run serve`: the headless server from the prebuilt bundle (out/main/serve.js; see ./built.mjs). */
import './require-node.mjs'
import { runBuilt } from './built.mjs'
import { heapFlagsMissing, MAIN_HEAP_FLAGS } from './heap-flags.mjs'

// The server's main thread runs with a small young generation (./heap-flags.mjs). V8 takes it only
// from the command line, so a start without it becomes, in place, the same start with it: execve
// keeps the process id (signals, systemd, Docker's PID 1) and the open stdio.
if (heapFlagsMissing(process.execArgv, process.env.NODE_OPTIONS)) {
  process.execve(process.execPath, [process.execPath, ...MAIN_HEAP_FLAGS, ...process.execArgv, ...process.argv.slice(1)], process.env)
}

await runBuilt('serve')
