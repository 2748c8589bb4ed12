/** The UI contract's method names, generated at build time (contract-methods.plugin.ts). */
declare module 'virtual:contract-methods' {
  const methods: readonly string[]
  export default methods
}
