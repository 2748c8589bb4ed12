/**
 * A Vite plugin providing `virtual:contract-methods`: the UI contract's method names as a plain array,
 * computed from the operation table at build time. The sandboxed preload forwards only these names and
 * so needs no copy of the table (nor its schema library) in its bundle. Used by the preload build and
 * by vitest (the preload's test).
 */
import type { Plugin } from 'vite'
import { CONTRACT_METHODS } from './src/shared/contract'

const ID = 'virtual:contract-methods'

export function contractMethods(): Plugin {
  return {
    name: 'chatapp-contract-methods',
    resolveId: (source) => (source === ID ? `\0${ID}` : undefined),
    load: (id) => (id === `\0${ID}` ? `export default ${JSON.stringify(CONTRACT_METHODS)}` : undefined)
  }
}
