/** `virtual:contract-methods` for tests (the build generates it: contract-methods.plugin.ts). */
import { CONTRACT_METHODS } from '../../src/shared/contract'

export default CONTRACT_METHODS
