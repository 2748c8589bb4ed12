/** Types of ./require-node.mjs (plain JavaScript, so that any old Node parses it). */
export declare const MIN_NODE_MAJOR: number
export declare function nodeVersionProblem(version: string): string | null
