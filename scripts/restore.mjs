/** `npm run restore -- FILE [--data-dir DIR]` from the prebuilt bundle (see ./built.mjs). */
import './require-node.mjs'
import { runBuilt } from './built.mjs'

await runBuilt('restore')
