/**
 * Pieces the domain files of the operation table share: the id and empty-input schemas, paging of
 * list routes, the seed's delete answer and its settings message.
 */
import Type from 'typebox'
import type { DeleteResult as DeleteResultT } from '../../schemas/operations'

export const Id = Type.String({ minLength: 1 })
export const Empty = Type.Object({})
/** Paging of the list routes: up to `limit` records after `offset` (default: the first 1,000, so small lists come whole, as the seed answers them). */
export const Page = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Records to skip.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1000, description: 'Records to answer (the total is in X-Total-Count).' }))
})
/** A page of a list: its records and how many there are in all. */
export interface PagedT<R> {
  items: R[]
  total: number
}
/** A page's records: what the UI contract answers for a paged list. */
export const items = (p: { items: unknown[] }): unknown[] => p.items
/** The seed's answer to a delete (the services answer nothing). */
export const deleted = (): DeleteResultT => ({ n: 1, ok: 1, deletedCount: 1 })
export const SETTINGS_UPDATED = 'Chatapp settings updated successfully!'
