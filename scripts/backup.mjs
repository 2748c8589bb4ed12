/** `npm run backup -- --out FILE [--data-dir DIR] [--media]` from the prebuilt bundle (see ./built.mjs). */
import './require-node.mjs'
import { runBuilt } from './built.mjs'

await runBuilt('backup')
