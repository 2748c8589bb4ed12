/** Records of the desk's inbox: each conversation's state and the quick replies. */
import Type, { type Static } from 'typebox'

/**
 * The desk's state of one conversation (docs/design.md §15 "Inbox"): up to which message
 * the owner has read it and whether it is resolved. A customer message newer than `resolved_at`
 * reopens it (derived when listed, so an inbound message costs no write here).
 */
export const ChatState = Type.Object({
  /** `<instance_id>:<chatId>`: one state per chat. */
  _id: Type.String(),
  instance_id: Type.String(),
  chatId: Type.String(),
  read_until: Type.Integer({ description: 'Epoch ms of the newest message the owner has read (0: none).' }),
  resolved_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Epoch ms of the resolve; null: open.' })
})
export type ChatState = Static<typeof ChatState>

/** A saved snippet the desk inserts by typing `/shortcut` (docs/design.md §15). One list for the whole app. */
export const QuickReply = Type.Object({
  _id: Type.String(),
  shortcut: Type.String({ format: 'shortcut', description: 'Typed after "/" in the composer: lower-case letters, digits, _ and -.' }),
  text: Type.String({ minLength: 1, maxLength: 4096 }),
  createdAt: Type.String(),
  updatedAt: Type.String()
})
export type QuickReply = Static<typeof QuickReply>
