/**
 * A TCP relay in front of a PostgreSQL server whose traffic can be held (`cut()`): a worker that
 * reaches the database through it finds the database unreachable (its queries hang, its connections
 * stay open) while the other workers reach it directly.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface PgRelay {
  /** The database URL through the relay (same database, credentials and options). */
  url: string
  /** Holds every byte both ways, on the open connections and on those opened later. */
  cut(): void
  /** Lets the traffic through again. */
  restore(): void
  /** Ends every relayed connection and the listener. */
  close(): Promise<void>
}

/** Starts a relay to `target` (a postgres:// URL) on a free loopback port. */
export async function startPgRelay(target: string): Promise<PgRelay> {
  const t = new URL(target)
  const pairs: Array<[Socket, Socket]> = []
  let held = false
  // Unpiped and paused, not only paused: pipe() resumes a paused source when its destination drains.
  const join = ([a, b]: [Socket, Socket]) => (a.pipe(b), b.pipe(a))
  const hold = ([a, b]: [Socket, Socket]) => (a.unpipe(b), b.unpipe(a), a.pause(), b.pause())
  const server: Server = createServer((client) => {
    const pair: [Socket, Socket] = [client, connect(Number(t.port || 5432), t.hostname)]
    pairs.push(pair)
    if (held) hold(pair)
    else join(pair)
    const end = () => pair.forEach((s) => s.destroy())
    for (const s of pair) s.on('error', end).on('close', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const via = new URL(target)
  via.hostname = '127.0.0.1'
  via.port = String((server.address() as { port: number }).port)
  const relay: PgRelay = {
    url: via.toString(),
    cut() {
      held = true
      pairs.forEach(hold)
    },
    restore() {
      if (!held) return
      held = false
      pairs.forEach(join)
    },
    close() {
      relay.restore()
      pairs.forEach((p) => p.forEach((s) => s.destroy()))
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
  return relay
}
