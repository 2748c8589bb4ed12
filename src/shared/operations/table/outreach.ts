/** Operations of outreach: broadcasts, scheduled messages and the send governor (docs/design.md §18). */
import Type from 'typebox'
import { OutreachMessage, OutreachSettings, ScheduledMessage, type OutreachSettings as OutreachSettingsT, type ScheduledMessage as ScheduledMessageT } from '../../schemas/records'
import { DeleteResult, type DeleteResult as DeleteResultT } from '../../schemas/operations'
import { op } from '../define'
import { BroadcastView, OutreachStatus, ScheduleFields, type BroadcastViewT, type OutreachStatusT } from '../results'
import { deleted, Empty, Id, SETTINGS_UPDATED } from './common'

export const OUTREACH_OPERATIONS = {
  /* ---------- outreach: broadcasts, scheduled messages, the send governor (docs/design.md §18) ---------- */

  'broadcasts.create': op<BroadcastViewT>()({
    summary: 'Send one message to many people, behind the send governor',
    description:
      '`send_type` `individual` with `to` a comma-separated list of numbers, or `group` with `to` (or `group_id`) a contact group id. `message.text` takes spintax ({Hi|Hello}) and [name]. Opted-out contacts and numbers not on WhatsApp are skipped with the reason; each recipient gets it at most once, also across restarts.',
    tags: ['broadcasts'],
    scope: 'instance',
    permission: 'outreach:write',
    input: Type.Object(
      {
        send_type: Type.Union([Type.Literal('individual'), Type.Literal('group')]),
        to: Type.Optional(Type.String({ minLength: 1, maxLength: 200_000 })),
        group_id: Type.Optional(Id),
        message: OutreachMessage
      },
      { examples: [{ send_type: 'individual', to: '2348179803743,2349048988056', message: { text: '{Hi|Hello} [name], our new menu is out!' } }] }
    ),
    output: BroadcastView,
    http: { method: 'POST', path: '/broadcast', message: 'Broadcast group created successfully!' },
    rpc: true
  }),
  'broadcasts.list': op<BroadcastViewT[]>()({
    summary: 'The broadcasts of this instance, newest first, with their progress',
    tags: ['broadcasts'],
    scope: 'instance',
    permission: 'outreach:read',
    input: Empty,
    output: Type.Array(BroadcastView),
    http: { method: 'GET', path: '/broadcast', message: 'Broadcast fetched successfully!' },
    rpc: true
  }),
  'broadcasts.get': op<BroadcastViewT>()({
    summary: 'One broadcast and its progress',
    tags: ['broadcasts'],
    scope: 'instance',
    permission: 'outreach:read',
    input: Type.Object({ id: Id }),
    output: BroadcastView,
    http: { method: 'GET', path: '/broadcast/:broadcast_id', params: { broadcast_id: 'id' }, message: 'Broadcast fetched successfully!', errors: { 404: 'Unknown broadcast' } },
    rpc: true
  }),
  'broadcasts.delete': op<void, { deleted: true }>()({
    summary: 'Delete a broadcast (what is pending is never sent); answers 204',
    tags: ['broadcasts'],
    scope: 'instance',
    permission: 'outreach:write',
    input: Type.Object({ id: Id }),
    output: Type.Null(),
    http: { method: 'DELETE', path: '/broadcast/:broadcast_id', params: { broadcast_id: 'id' }, message: 'Broadcast deleted successfully!', respond: 'noContent', errors: { 404: 'Unknown broadcast' } },
    rpc: { output: () => ({ deleted: true }) }
  }),
  'broadcasts.pause': broadcastControl('pause', 'Pause a sending broadcast', 'Broadcast paused', 'Done or cancelled'),
  'broadcasts.resume': broadcastControl('resume', 'Resume a paused broadcast (it pauses again while WhatsApp still caps the number)', 'Broadcast resumed', 'Done or cancelled'),
  'broadcasts.cancel': broadcastControl('cancel', 'Cancel a broadcast: what is pending is never sent', 'Broadcast cancelled', 'Already done'),
  'schedules.create': op<ScheduledMessageT>()({
    summary: 'Schedule a message: once, daily, weekly or monthly, at a local time',
    description:
      '`target`: `{type: "contact"|"group"|"chat", id}`. `start_at` is local wall-clock time in bot_timezone (`YYYY-MM-DDTHH:MM`); recurring runs keep its time of day across DST changes (weekly: on `days`, default its weekday; monthly: its day of the month, or the last day of shorter months). Each run starts a broadcast, so the send governor and quiet hours apply.',
    tags: ['scheduled messages'],
    scope: 'instance',
    permission: 'outreach:write',
    input: Type.Object(ScheduleFields.properties, {
      examples: [{ title: 'Weekend menu', target: { type: 'group', id: '64ac311eee05a1a2c27fbdb5' }, message: { text: 'Hi [name], this weekend: {pizza|pasta} night!' }, repeat: 'weekly', start_at: '2026-11-27T10:00', days: ['friday'] }]
    }),
    output: ScheduledMessage,
    http: { method: 'POST', path: '/schedule', message: 'Scheduled message created successfully!' },
    rpc: true
  }),
  'schedules.list': op<readonly ScheduledMessageT[]>()({
    summary: 'The scheduled messages of this instance, soonest first',
    tags: ['scheduled messages'],
    scope: 'instance',
    permission: 'outreach:read',
    input: Empty,
    output: Type.Array(ScheduledMessage),
    http: { method: 'GET', path: '/schedule', message: 'Scheduled messages fetched successfully!' },
    rpc: true
  }),
  'schedules.update': op<ScheduledMessageT>()({
    summary: 'Change a scheduled message (`active: false` pauses it)',
    tags: ['scheduled messages'],
    scope: 'instance',
    permission: 'outreach:write',
    input: Type.Object({ id: Id, ...Type.Partial(ScheduleFields).properties }),
    output: ScheduledMessage,
    http: { method: 'PUT', path: '/schedule/:schedule_id', params: { schedule_id: 'id' }, message: 'Scheduled message updated successfully!', errors: { 404: 'Unknown scheduled message' } },
    rpc: true
  }),
  'schedules.delete': op<void, DeleteResultT>()({
    summary: 'Delete a scheduled message',
    tags: ['scheduled messages'],
    scope: 'instance',
    permission: 'outreach:write',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/schedule/:schedule_id', params: { schedule_id: 'id' }, message: 'Scheduled message deleted successfully!', wire: deleted, errors: { 404: 'Unknown scheduled message' } },
    rpc: { output: deleted }
  }),
  'outreach.status': op<OutreachStatusT>()({
    summary: 'The send governor of this number: its settings, what it counted, and when the next outreach message may leave',
    tags: ['broadcasts'],
    scope: 'instance',
    permission: 'outreach:read',
    input: Empty,
    output: OutreachStatus,
    http: { method: 'GET', path: '/chatapp/outreach', message: 'Outreach status fetched successfully!' },
    rpc: true
  }),
  'settings.outreach': op<OutreachSettingsT>()({
    summary: 'The send governor’s settings: quotas, random gaps, quiet hours, the number’s age, cooldown',
    audit: 'Changed the send governor’s settings',
    description: 'Applies to broadcasts and scheduled messages only; bot and owner replies are never held. Defaults and their sources: docs/design.md §18.',
    tags: ['broadcasts'],
    scope: 'instance',
    permission: 'settings:write',
    input: Type.Partial(OutreachSettings),
    output: OutreachSettings,
    http: { method: 'PUT', path: '/chatapp/outreach', message: SETTINGS_UPDATED, errors: { 400: 'A bad value, or min_gap_seconds above max_gap_seconds' } },
    rpc: true
  })
} as const

/** The pause / resume / cancel operations of a broadcast (one shape, three verbs). */
function broadcastControl(verb: 'pause' | 'resume' | 'cancel', summary: string, message: string, conflict: string) {
  return op<BroadcastViewT>()({
    summary,
    tags: ['broadcasts'],
    scope: 'instance',
    permission: 'outreach:write',
    input: Type.Object({ id: Id }),
    output: BroadcastView,
    http: { method: 'POST', path: `/broadcast/:broadcast_id/${verb}`, params: { broadcast_id: 'id' }, message, bodyOptional: true, errors: { 404: 'Unknown broadcast', 409: conflict } },
    rpc: true
  })
}
