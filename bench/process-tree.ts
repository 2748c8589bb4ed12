/** Memory of a process tree, from Linux's /proc (the start and history benchmarks). */
import { readdirSync, readFileSync } from 'node:fs'

/** RSS (KiB) of `pid` and all its descendants, from /proc. */
export function treeRssKb(pid: number): number {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {
      // The process ended meanwhile.
    }
  }
  let total = 0
  const stack = [pid]
  while (stack.length > 0) {
    const p = stack.pop()!
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))
      total += m ? Number(m[1]) : 0
    } catch {
      // Gone.
    }
    stack.push(...(children.get(p) ?? []))
  }
  return total
}
