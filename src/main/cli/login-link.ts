/** Entry of `npm run login-link` (./login-link-command.ts). */
import { runLoginLinkCommand } from './login-link-command'

process.exitCode = await runLoginLinkCommand(process.argv.slice(2))
