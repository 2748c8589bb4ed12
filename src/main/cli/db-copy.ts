/** Entry of `npm run db:copy` (./db-copy-command.ts). */
import { runDbCopyCommand } from './db-copy-command'

process.exitCode = await runDbCopyCommand(process.argv.slice(2))
