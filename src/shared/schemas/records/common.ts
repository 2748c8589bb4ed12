/** Pieces the records of several domains share: the bookkeeping fields and the days and hours of the week. */
import Type, { type Static } from 'typebox'

/** Record bookkeeping fields of docs/api-seed.md §2.2. */
export const Bookkeeping = {
  _id: Type.String({ description: 'Record identifier (24 hex digits).' }),
  createdAt: Type.String({ description: 'ISO 8601 UTC timestamp with milliseconds.' }),
  updatedAt: Type.String({ description: 'ISO 8601 UTC timestamp; changes on update.' }),
  __v: Type.Integer({ description: 'Revision counter, 0 on a new record.' })
}

export const WEEK_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
export type WeekDay = (typeof WEEK_DAYS)[number]

export const ActiveDays = Type.Object(
  Object.fromEntries(WEEK_DAYS.map((d) => [d, Type.Boolean()])) as Record<WeekDay, ReturnType<typeof Type.Boolean>>
)
export type ActiveDays = Static<typeof ActiveDays>

export const ActiveHours = Type.Object({
  from: Type.String({ format: 'active-hours' }),
  to: Type.String({ format: 'active-hours' })
})
export type ActiveHours = Static<typeof ActiveHours>
