/** Operations of the desk's inbox: conversations, their labels and read state, quick replies. */
import Type from 'typebox'
import { Contact, QuickReply, type Contact as ContactT, type QuickReply as QuickReplyT } from '../../schemas/records'
import { DeleteResult, type DeleteResult as DeleteResultT } from '../../schemas/operations'
import { op } from '../define'
import { Conversation, TimelineEntry, type ConversationT, type TimelineEntryT } from '../results'
import { deleted, Empty, Id } from './common'

export const INBOX_OPERATIONS = {
  /* ---------- the inbox (docs/design.md §15) ---------- */

  'inbox.list': op<ConversationT[]>()({
    summary: 'Conversations of every instance (or one), newest activity first',
    description:
      'Each with the customer’s name and number, the last message, the unread count, whether it is unanswered (the last message is the customer’s), open or resolved, and the hand-off pause if the bot is paused for it. `q` searches names, numbers and the text of kept messages.',
    tags: ['inbox'],
    scope: 'account',
    permission: 'inbox:read',
    reach: 'reachable',
    instanceField: 'instance_id',
    input: Type.Object({
      instance_id: Type.Optional(Type.String({ minLength: 1, description: 'Only this instance (default: every instance).' })),
      status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('all')], { default: 'all' })),
      unanswered: Type.Optional(Type.Boolean({ description: 'Only chats waiting for an answer.' })),
      q: Type.Optional(Type.String({ maxLength: 200 })),
      label: Type.Optional(Type.String({ maxLength: 40, description: 'Only chats whose contact has this label.' })),
      assigned: Type.Optional(
        Type.Union([Type.Literal('mine'), Type.Literal('unassigned'), Type.Literal('all')], { default: 'all', description: 'mine: assigned to the caller; unassigned: to nobody.' })
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 }))
    }),
    output: Type.Array(Conversation),
    http: { method: 'GET', path: '/chatapp/inbox', query: ['instance_id', 'status', 'unanswered', 'q', 'label', 'assigned', 'limit'], message: 'Conversations fetched successfully!', bodyOptional: true, errors: { 404: 'Unknown instance_id' } },
    rpc: true
  }),
  'inbox.labels': op<ContactT>()({
    summary: 'Put labels on a conversation (its customer’s contact; made if needed)',
    description: 'Replaces the labels of the 1:1 chat’s contact; labels that do not exist yet are made with the next colour.',
    tags: ['inbox'],
    scope: 'instance',
    permission: 'inbox:reply',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }), labels: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20 }) }),
    output: Contact,
    http: { method: 'PUT', path: '/chatapp/inbox/labels', message: 'Conversation labels updated', errors: { 400: 'Not a 1:1 chat with a phone number' } },
    rpc: true
  }),
  'inbox.get': op<ConversationT>()({
    summary: 'One conversation (whatever the list’s filters)',
    tags: ['inbox'],
    scope: 'instance',
    permission: 'inbox:read',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Conversation,
    http: { method: 'GET', path: '/chatapp/inbox/chat', query: ['chatId'], message: 'Conversation fetched successfully!', errors: { 404: 'No messages with this chat' } },
    rpc: true
  }),
  'inbox.read': op<{ chatId: string; read: number; receipts: boolean }>()({
    summary: 'Mark a conversation read (sends read receipts)',
    description:
      'Clears the unread count and sends WhatsApp read receipts for the customer’s unread messages (blue ticks, if the account shares read receipts). `receipts` is false when the instance was not connected: the chat is still marked read here.',
    tags: ['inbox'],
    scope: 'instance',
    permission: 'inbox:reply',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Type.Object({ chatId: Type.String(), read: Type.Integer({ description: 'Messages newly marked read.' }), receipts: Type.Boolean() }),
    http: { method: 'POST', path: '/chatapp/inbox/read', message: 'Conversation marked as read.', errors: { 404: 'No messages with this chat' } },
    rpc: true
  }),
  'inbox.resolve': op<ConversationT>()({
    summary: 'Resolve a conversation (the bot answers it again)',
    description: 'Resolved until the customer writes again. Ends a hand-off pause of the chat.',
    tags: ['inbox'],
    scope: 'instance',
    permission: 'inbox:reply',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Conversation,
    http: { method: 'POST', path: '/chatapp/inbox/resolve', message: 'Conversation resolved.', errors: { 404: 'No messages with this chat' } },
    rpc: true
  }),
  'inbox.reopen': op<ConversationT>()({
    summary: 'Reopen a resolved conversation',
    tags: ['inbox'],
    scope: 'instance',
    permission: 'inbox:reply',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Conversation,
    http: { method: 'POST', path: '/chatapp/inbox/reopen', message: 'Conversation reopened.', errors: { 404: 'No messages with this chat' } },
    rpc: true
  }),
  'inbox.assign': op<{ assigned_to: { id: string; name: string } | null }>()({
    summary: 'Assign a conversation to a person, round-robin, or to nobody',
    description:
      '`staff_id`: a staff member who works on the instance, or `owner`; null unassigns. `round_robin: true` picks the agent of the instance, signed in now, who was given a conversation longest ago. An agent may take a conversation or give back their own. A person’s reply to an unassigned conversation assigns it to them. Each change is in the conversation’s timeline and fires `onAssignment`.',
    tags: ['inbox'],
    scope: 'instance',
    permission: 'inbox:reply',
    input: Type.Object({
      chatId: Type.String({ minLength: 1 }),
      staff_id: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
      round_robin: Type.Optional(Type.Boolean())
    }),
    output: Type.Object({ assigned_to: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()]) }),
    http: { method: 'POST', path: '/chatapp/inbox/assign', message: 'Conversation assigned', errors: { 404: 'No messages with this chat', 409: 'No agent signed in (round_robin)' } },
    rpc: true
  }),
  'inbox.timeline': op<TimelineEntryT[]>()({
    summary: 'A conversation’s timeline of desk events (assignments), oldest first',
    tags: ['inbox'],
    scope: 'instance',
    permission: 'inbox:read',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Type.Array(TimelineEntry),
    http: { method: 'GET', path: '/chatapp/inbox/timeline', query: ['chatId'], message: 'Timeline fetched', bodyOptional: true },
    rpc: true
  }),
  'quickReplies.list': op<readonly QuickReplyT[]>()({
    summary: 'The desk’s quick replies, by shortcut',
    tags: ['inbox'],
    scope: 'account',
    permission: 'inbox:read',
    reach: 'shared',
    input: Empty,
    output: Type.Array(QuickReply),
    http: { method: 'GET', path: '/quick-reply', message: 'Quick replies fetched successfully!', bodyOptional: true },
    rpc: true
  }),
  'quickReplies.create': op<QuickReplyT>()({
    summary: 'Save a quick reply',
    audit: 'Saved a quick reply',
    description: 'Typing `/shortcut` in the desk’s composer inserts `text`. Shortcuts are unique.',
    tags: ['inbox'],
    scope: 'account',
    permission: 'settings:write',
    input: Type.Pick(QuickReply, ['shortcut', 'text']),
    output: QuickReply,
    http: { method: 'POST', path: '/quick-reply', message: 'Quick reply created successfully!', errors: { 409: 'That shortcut is taken' } },
    rpc: true
  }),
  'quickReplies.update': op<QuickReplyT>()({
    summary: 'Change a quick reply',
    audit: 'Changed a quick reply',
    tags: ['inbox'],
    scope: 'account',
    permission: 'settings:write',
    input: Type.Object({ id: Id, ...Type.Partial(Type.Pick(QuickReply, ['shortcut', 'text'])).properties }),
    output: QuickReply,
    http: { method: 'PUT', path: '/quick-reply/:quick_reply_id', params: { quick_reply_id: 'id' }, message: 'Quick reply updated successfully!', errors: { 404: 'Unknown quick reply', 409: 'That shortcut is taken' } },
    rpc: true
  }),
  'quickReplies.delete': op<void, DeleteResultT>()({
    summary: 'Delete a quick reply',
    audit: 'Deleted a quick reply',
    tags: ['inbox'],
    scope: 'account',
    permission: 'settings:write',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/quick-reply/:quick_reply_id', params: { quick_reply_id: 'id' }, message: 'Quick reply deleted successfully!', wire: deleted, errors: { 404: 'Unknown quick reply' } },
    rpc: { output: deleted }
  })
} as const
