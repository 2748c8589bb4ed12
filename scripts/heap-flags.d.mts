/** Types of ./heap-flags.mjs (plain JavaScript: scripts/serve.mjs applies it before anything is built). */
export declare const MAIN_HEAP_FLAGS: readonly string[]
export declare const ELECTRON_HEAP_ARGS: readonly string[]
export declare function heapFlagsMissing(execArgv: readonly string[], nodeOptions: string | undefined): boolean
