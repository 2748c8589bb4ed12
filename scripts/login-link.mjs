/** `npm run login-link [-- --data-dir DIR] [--url URL]` from the prebuilt bundle (see ./built.mjs). */
import './require-node.mjs'
import { runBuilt } from './built.mjs'

await runBuilt('login-link')
