/** `npm run serve`: the headless server from the prebuilt bundle (out/main/serve.js; see ./built.mjs). */
import './require-node.mjs'
import { runBuilt } from './built.mjs'

await runBuilt('serve')
