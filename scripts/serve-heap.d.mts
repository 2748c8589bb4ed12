/** Types of ./serve-heap.mjs (plain JavaScript: scripts/serve.mjs applies it before anything is built). */
export declare const SERVE_HEAP_FLAGS: readonly string[]
export declare function heapFlagsMissing(execArgv: readonly string[], nodeOptions: string | undefined): boolean
