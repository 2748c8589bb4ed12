/**
 * The V8 heap settings of the app's main thread: the headless server's (`npm run serve`, the Docker
 * image: scripts/serve.mjs) and the desktop app's (Electron's main process: `npm start`, the .deb and
 * .rpm desktop entries of scripts/dist-linux.mjs, the AppImage's of electron-builder.ts).
 *
 * V8 grows a busy thread's young generation (its semi-spaces) to tens of MB, and a server that
 * has been busy once keeps them: an export of a customer of 100,000 messages grew the server by
 * +63–77 MB (and +150 MB in one run of five), the young generation being most of it. At 4 MB per
 * semi-space the same exports grow it by +10–38 MB; sends/s stay within the run-to-run spread
 * (2,758–2,803 against 2,636–2,696 without webhooks; 1,645–1,707 against 1,762–1,808 with them),
 * and the assistant's own time around the model call has a shorter tail (p99 6.5–6.9 ms against
 * 8.1–14.0 ms over 600 answers, A B A B): each collection has less to copy. docs/benchmarks.md
 * "The server's young generation" has the runs. The SQLite threads have theirs set in
 * src/main/store/db/sqlite-thread/sqlite-thread.ts (`resourceLimits`).
 *
 * Plain JavaScript: scripts/serve.mjs applies it before anything is built or loaded.
 */

/** V8 flags a main thread starts with (node's command line). */
export const MAIN_HEAP_FLAGS = ['--max-semi-space-size=4']

/**
 * The same for Electron's main process, which takes V8 flags only from its own command line
 * (https://www.electronjs.org/docs/latest/api/command-line-switches#--js-flagsflags: "has to be
 * passed when starting Electron if you want to enable the flags in the main process").
 */
export const ELECTRON_HEAP_ARGS = [`--js-flags=${MAIN_HEAP_FLAGS.join(' ')}`]

/**
 * Whether a process started with `execArgv` (process.execArgv) and `nodeOptions` (NODE_OPTIONS)
 * lacks the young generation's setting: false when either sets `--max-semi-space-size`, the
 * operator's choice then standing. Pure.
 */
export function heapFlagsMissing(execArgv, nodeOptions) {
  const given = [...execArgv, ...String(nodeOptions ?? '').split(/\s+/)].map((arg) => arg.replace(/_/g, '-'))
  return !given.some((arg) => arg === '--max-semi-space-size' || arg.startsWith('--max-semi-space-size='))
}
