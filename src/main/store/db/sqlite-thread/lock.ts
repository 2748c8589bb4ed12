/**
 * A FIFO lock: `acquire` resolves in call order, one holder at a time. SQLite allows one writer, so the
 * transactions that share the writer's connection take turns through it: on the main thread, the
 * transactions the main thread drives statement by statement (./thread-dialect.ts); in the writer's
 * thread, those and the thread's own group commits (./host.ts).
 */
export class Lock {
  private tail: Promise<void> = Promise.resolve()

  /** Resolves, in call order, with the function that releases the lock. */
  acquire(): Promise<() => void> {
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    const turn = this.tail.then(() => release)
    this.tail = this.tail.then(() => held)
    return turn
  }
}
