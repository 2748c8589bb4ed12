/**
 * What the UI says about the workers (docs/design.md §22): only a desk that really runs on
 * several workers shows them; the desktop (one process) shows nothing. Pure.
 */
import type { ClusterT } from '../../../../shared/operations/table/cluster'

/** Whether there is more than one worker to speak of. */
export function isCluster(c: ClusterT | undefined): c is ClusterT {
  return (c?.workers.length ?? 0) > 1
}

/** "Runs on worker2", "Not running on any worker" for an instance, or null outside a cluster. */
export function workerLine(c: ClusterT | undefined, sessionId: string): string | null {
  if (!isCluster(c)) return null
  const owner = c.instances.find((i) => i.session_id === sessionId)?.owner ?? null
  return owner ? `Runs on ${owner}` : 'Not running on any worker'
}

/** "3 instances · seen 4 s ago" for a worker row at `nowMs`; "Not responding · last seen 24 s ago" for one that stopped. */
export function workerSummary(w: ClusterT['workers'][number], nowMs: number): string {
  const ago = Math.max(0, Math.round((nowMs - Date.parse(w.last_seen_at)) / 1000))
  const when = ago < 60 ? `${ago} s` : ago < 3600 ? `${Math.round(ago / 60)} min` : `${Math.round(ago / 3600)} h`
  if (!w.alive) return `Not responding · last seen ${when} ago`
  return `${w.instances} instance${w.instances === 1 ? '' : 's'} · seen ${when} ago`
}
