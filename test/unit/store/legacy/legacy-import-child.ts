/**
 * A process that opens a data dir (and so runs the 0.1 import) for the kill -9 tests
 * (legacy-import-kill.test.ts): it prints `PROGRESS <phase> <step>` for each step of the import and,
 * at the one named on its command line, prints `HALT` and waits there for its SIGKILL — inside the
 * step's transaction for `written`, after its commit for `committed`, after a rename for `moved`.
 *
 * Usage: node --import tsx legacy-import-child.ts <dataDir> <batchSize> [<phase> <step>]
 */
import { openStorage } from '../../../../src/main/store/storage'

const [dataDir, batchSize, phase, step] = process.argv.slice(2)
const storage = await openStorage(dataDir!, {
  legacyImport: {
    batchSize: Number(batchSize),
    onProgress: async (e) => {
      // Pipes are written synchronously on POSIX: the line is out before the wait begins.
      process.stdout.write(`PROGRESS ${e.phase} ${e.step}\n`)
      if (e.phase === phase && e.step === step) {
        process.stdout.write('HALT\n')
        await new Promise(() => {})
      }
    }
  }
})
await storage.close()
process.stdout.write('DONE\n')
