/** Entry of `npm run restore` (./restore-command.ts). */
import { runRestoreCommand } from './restore-command'

process.exitCode = await runRestoreCommand(process.argv.slice(2))
