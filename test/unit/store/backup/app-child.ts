/**
 * A stand-in for the running app in the command-line tests: a process that owns a data dir as the app
 * does (the data-dir lock, the storage open) and writes a message every few milliseconds until
 * SIGTERM, then closes cleanly. Prints `READY` once it owns the dir, `WROTE <n>` as it goes.
 * Usage: node --import tsx app-child.ts <dataDir>
 */
import { lockDataDir } from '../../../../src/main/store/data-dir-lock'
import { openStorage } from '../../../../src/main/store/storage'
import { INSTANCE, message } from './helpers'

const dataDir = process.argv[2]!
const release = await lockDataDir(dataDir, () => {})
const storage = await openStorage(dataDir)
let n = 0
let stopping = false
process.stdout.write('READY\n')
const loop = (async () => {
  while (!stopping) {
    await storage.repos.messages.append(INSTANCE, { ...message(500_000 + n), id: `LIVE${n}` })
    n++
    if (n % 20 === 0) process.stdout.write(`WROTE ${n}\n`)
    await new Promise((r) => setTimeout(r, 5))
  }
})()
process.on('SIGTERM', () => {
  stopping = true
  void loop
    .then(() => storage.close())
    .then(() => release())
    .then(() => process.exit(0))
})
