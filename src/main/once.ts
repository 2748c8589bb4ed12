/**
 * `fn` run at most once: every call answers the first call's promise, so a second caller waits for the
 * work the first started instead of doing it again (e.g. closing from two shutdown paths).
 */
export function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined
  return () => (started ??= fn())
}
