/** Entry of `npm run backup` (./backup-command.ts). */
import { runBackupCommand } from './backup-command'

process.exitCode = await runBackupCommand(process.argv.slice(2))
