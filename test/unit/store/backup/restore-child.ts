/**
 * A restore run in a child process, for the crash tests: prints `STEP <name>` after each step of
 * the restore and, at the step named by STOP_AT, stops there (blocked, not exiting) until the test
 * kills it. Usage: node --import tsx restore-child.ts <restore|finish|revert> <dataDir> [archive|replacedDir]
 */
import { finishInterruptedRestore, restoreBackup, revertRestore } from '../../../../src/main/store/backup'

const [mode, dataDir, archive] = process.argv.slice(2)
const stopAt = process.env.STOP_AT

async function onStep(step: string): Promise<void> {
  process.stdout.write(`STEP ${step}\n`)
  if (step === stopAt) {
    // Blocks the thread where it is: the test sees the line and kills the process with SIGKILL.
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()))
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
  }
}

if (mode === 'restore') await restoreBackup(dataDir!, archive!, { onStep })
else if (mode === 'revert') await revertRestore(dataDir!, archive!, { onStep })
else await finishInterruptedRestore(dataDir!, { onStep })
process.stdout.write('FINISHED\n')
