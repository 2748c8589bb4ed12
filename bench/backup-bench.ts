/**
 * Backup and restore on a large data dir ("streamed; measure it on a database of a few
 * hundred MB"): time and peak RSS of a backup (through the app's own connection), a verification and
 * a restore, at two sizes (memory must not grow with the data), and the archive's size and time at
 * gzip levels 1 and 6 (the default's reason).
 *
 * Run: node --expose-gc --import tsx bench/backup-bench.ts [MB…] (default 50 300). Each size runs in a
 * process of its own, measured after its data was written and the data dir reopened, so the RSS
 * readings of the sizes start from the same place.
 * The data: messages through the repository (text that compresses as chat does), Signal keys (random
 * base64, as credentials are), and attachments (random bytes, as photos are), in the proportions
 * 1 : 2 : 1 by size.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createBackup, restoreBackup, storageSource, verifyBackup } from '../src/main/store/backup'
import { openStorage, type Storage } from '../src/main/store/storage'

const MB = 1024 * 1024
const INSTANCE = 'inst0000000000000000000a'
const WORDS = 'hello order delivery price thanks when where tomorrow please send photo invoice address payment confirmed shipped'.split(' ')

function chatText(i: number): string {
  let s = ''
  while (s.length < 400) s += WORDS[(i * 7 + s.length) % WORDS.length] + ' '
  return `${s}#${i}`
}

async function fill(storage: Storage, megabytes: number): Promise<void> {
  const quarter = (megabytes * MB) / 4
  // Messages: ~1 KB each on disk with their index.
  const messages = Math.round(quarter / 1000)
  for (let i = 0; i < messages; i += 5000) {
    await storage.repos.messages.appendMany(
      INSTANCE,
      Array.from({ length: Math.min(5000, messages - i) }, (_, j) => {
        const n = i + j
        return { id: `M${n}`, chatId: `49151${String(n % 500).padStart(6, '0')}@s.whatsapp.net`, fromMe: n % 2 === 0, pushName: 'Ana', type: 'text', text: chatText(n), timestamp: 1_700_000_000_000 + n * 1000, status: 'RECEIVED', source: 'inbound' as const }
      })
    )
  }
  const keys = Math.round((2 * quarter) / 1400)
  for (let i = 0; i < keys; i += 2000) {
    await storage.database.write((trx) =>
      trx
        .insertInto('auth_keys')
        .values(Array.from({ length: Math.min(2000, keys - i) }, (_, j) => ({ instance_id: INSTANCE, type: 'session', id: String(i + j), value: randomBytes(1000).toString('base64') })))
        .execute()
    )
  }
  for (let i = 0; i < 16; i++) await writeFile(join(storage.paths.attachments, `photo-${i}`), randomBytes(Math.round(quarter / 16)))
}

/** Runs `work`, sampling RSS every 10 ms; answers the time, the RSS before and the peak during. */
async function measure<T>(work: () => Promise<T>): Promise<{ ms: number; rssBefore: number; rssPeak: number; result: T }> {
  global.gc?.()
  const rssBefore = process.memoryUsage.rss()
  let rssPeak = rssBefore
  const timer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 10)
  const started = performance.now()
  const result = await work()
  const ms = performance.now() - started
  clearInterval(timer)
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss())
  return { ms, rssBefore, rssPeak, result }
}

const mb = (b: number) => (b / MB).toFixed(0)

async function runAt(megabytes: number, levels: number[]): Promise<string[]> {
  const dir = join(tmpdir(), `chatapp-backup-bench-${megabytes}`)
  await rm(dir, { recursive: true, force: true })
  const filled = performance.now()
  const writer = await openStorage(dir)
  await fill(writer, megabytes)
  await writer.close()
  console.error(`filled ${megabytes} MB in ${((performance.now() - filled) / 1000).toFixed(0)} s`)
  const storage = await openStorage(dir)
  const rows: string[] = []
  try {
    const dbSize = (await stat(storage.paths.database)).size
    for (const level of levels) {
      const out = join(dir, `..`, `chatapp-backup-bench-${megabytes}-l${level}.tar.gz`)
      await rm(out, { force: true })
      const b = await measure(() => createBackup(storageSource(storage), out, { gzipLevel: level }))
      const size = (await stat(out)).size
      rows.push(`| ${mb(dbSize)} MB db + ${mb((megabytes * MB) / 4)} MB files | backup, gzip ${level} | ${(b.ms / 1000).toFixed(1)} s | ${mb(size)} MB | ${mb(b.rssBefore)} → ${mb(b.rssPeak)} MB (+${mb(b.rssPeak - b.rssBefore)}) |`)
      if (level === levels[0]) {
        const v = await measure(() => verifyBackup(out, { tmpDir: join(dir, 'tmp') }))
        rows.push(`| | verify | ${(v.ms / 1000).toFixed(1)} s | | ${mb(v.rssBefore)} → ${mb(v.rssPeak)} MB (+${mb(v.rssPeak - v.rssBefore)}) |`)
        const target = join(dir, '..', `chatapp-backup-bench-${megabytes}-restored`)
        await rm(target, { recursive: true, force: true })
        const r = await measure(() => restoreBackup(target, out))
        rows.push(`| | restore | ${(r.ms / 1000).toFixed(1)} s | | ${mb(r.rssBefore)} → ${mb(r.rssPeak)} MB (+${mb(r.rssPeak - r.rssBefore)}) |`)
        await rm(target, { recursive: true, force: true })
      }
      await rm(out, { force: true })
    }
  } finally {
    await storage.close()
    await rm(dir, { recursive: true, force: true })
  }
  return rows
}

const child = process.env.BACKUP_BENCH_SIZE
if (child) {
  const rows = await runAt(Number(child), (process.env.BACKUP_BENCH_LEVELS ?? '1').split(',').map(Number))
  console.log(rows.join('\n'))
} else {
  const sizes = process.argv.slice(2).map(Number)
  const rows = ['| data | step | time | archive | RSS before → peak |', '| --- | --- | --- | --- | --- |']
  for (const [i, size] of (sizes.length ? sizes : [50, 300]).entries()) {
    const levels = i === (sizes.length || 2) - 1 ? '1,6' : '1'
    const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], { env: { ...process.env, BACKUP_BENCH_SIZE: String(size), BACKUP_BENCH_LEVELS: levels }, stdio: ['ignore', 'pipe', 'inherit'] })
    rows.push(out.toString().trim())
  }
  console.log(rows.join('\n'))
}
