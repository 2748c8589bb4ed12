/** Records of the data an instance keeps: how long its history stays. */
import Type, { type Static } from 'typebox'

/**
 * How long an instance keeps its history (docs/design.md §20): forever by default, or
 * N days; the media files kept in the data dir may go sooner than the text.
 */
export const RetentionSettings = Type.Object({
  days: Type.Union([Type.Integer({ minimum: 1, maximum: 36_500 }), Type.Null()], { description: 'Messages older than this many days are deleted (daily); null = keep forever.' }),
  media_days: Type.Union([Type.Integer({ minimum: 1, maximum: 36_500 }), Type.Null()], {
    description: 'Downloaded media files older than this many days are deleted (the message stays; the file can be downloaded again while WhatsApp keeps it); null = as long as the message.'
  })
})
export type RetentionSettings = Static<typeof RetentionSettings>
export const DEFAULT_RETENTION: RetentionSettings = { days: null, media_days: null }
