/**
 * Start time and idle memory of `npm run serve` (docs/benchmarks.md "Start time and idle memory"; targets: ≤ 1.5 s to the listening line,
 * idle RSS of the whole process tree ≤ 150 MB with no WhatsApp instance). Each run: a fresh data dir,
 * the sandbox channel, the bundle already built (a start after a build, as most starts are); the
 * time from spawning `npm run serve` to the line `Chatapp API listening on`, then, after 3 s idle, the
 * RSS of every process of the tree (npm, its shell, node) from /proc. Median of `RUNS` runs. For
 * comparison, the same for the server run from source under tsx (how `npm run serve` ran before, minus
 * its rebuild of ~2 s). Linux only (/proc).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { treeRssKb } from './process-tree'

const RUNS = Number(process.env.START_RUNS ?? 5)
const root = fileURLToPath(new URL('..', import.meta.url))

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

async function once(cmd: string, args: string[]): Promise<{ ms: number; rssMb: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-start-'))
  const started = performance.now()
  const child = spawn(cmd, args, {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CHATAPP_DATA_DIR: join(dir, 'data'), CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: 'start-bench-token-0123456789abcdef', CHATAPP_LOG_LEVEL: 'warn' }
  })
  try {
    const ms = await new Promise<number>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString()
        if (out.includes('Chatapp API listening on')) resolve(performance.now() - started)
      })
      child.once('exit', (code) => reject(new Error(`${cmd} ${args.join(' ')} exited (${code}) before listening:\n${out}`)))
    })
    await new Promise((r) => setTimeout(r, 3000))
    return { ms, rssMb: treeRssKb(child.pid!) / 1024 }
  } finally {
    const exited = new Promise((r) => child.once('exit', r))
    process.kill(-child.pid!, 'SIGTERM')
    await exited
    await rm(dir, { recursive: true, force: true })
  }
}

/** Runs the benchmark; prints a markdown table. */
export async function runStartBench(): Promise<void> {
  // One start to be sure the bundle is built (not measured).
  await once('npm', ['run', '-s', 'serve'])
  const rows: Array<[string, string[], string]> = [
    ['`npm run serve` (prebuilt bundle, plain node)', ['npm', 'run', '-s', 'serve'].slice(1), 'npm'],
    ['from source under tsx (before, without its rebuild)', [join(root, 'node_modules', '.bin', 'tsx'), 'src/main/serve.ts'], 'node-tsx']
  ]
  console.log(`${RUNS} runs each, medians.\n`)
  console.log('| start | to listening, ms | idle RSS of the process tree, MB | targets |')
  console.log('| --- | ---: | ---: | --- |')
  for (const [name, args, kind] of rows) {
    const runs: Array<{ ms: number; rssMb: number }> = []
    for (let i = 0; i < RUNS; i++) runs.push(kind === 'npm' ? await once('npm', args) : await once(args[0]!, args.slice(1)))
    console.log(`| ${name} | ${median(runs.map((r) => r.ms)).toFixed(0)} | ${median(runs.map((r) => r.rssMb)).toFixed(0)} | ${kind === 'npm' ? '≤ 1,500 ms, ≤ 150 MB' : ''} |`)
  }
}
