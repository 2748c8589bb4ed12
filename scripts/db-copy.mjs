/** `npm run db:copy -- --from <data dir | postgres://…> --to <data dir | postgres://…>` from the prebuilt bundle (see ./built.mjs). */
import './require-node.mjs'
import { runBuilt } from './built.mjs'

await runBuilt('db-copy')
