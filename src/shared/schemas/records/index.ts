/**
 * Stored records and their API shapes (docs/api-seed.md §2, docs/design.md §5–§9). One schema per record gives the
 * TypeScript type (`Static`), the OpenAPI component and, where a record is input, the validation.
 *
 * Kept one file per domain, as the operation table is (../../operations/table/); this index re-exports
 * them, so a caller imports from here or from the domain's file alike.
 */
export * from './common'
export * from './instances'
export * from './bot'
export * from './messages'
export * from './contacts'
export * from './inbox'
export * from './outreach'
export * from './data'
