/** Operations of instances: create, start, pair, stop, log out; their settings and webhook; the sandbox's simulations; webhook deliveries. */
import Type from 'typebox'
import { AssistantCircuit, type AssistantCircuit as AssistantCircuitT } from '../../schemas/assistant'
import { Instance, LoggedMessage, RequestConfig, SendLimitsSchema, type Instance as InstanceT, type LoggedMessage as LoggedMessageT, type SendLimits } from '../../schemas/records'
import {
  DeleteResult,
  InitBody,
  PairingCodeBody,
  SandboxInboundBody,
  SetWebhookBody,
  UpdateActionsBody,
  UpdateActiveDaysBody,
  UpdateActiveHoursBody,
  UpdateGeneralBody,
  UpdateResult,
  type DeleteResult as DeleteResultT,
  type UpdateResult as UpdateResultT
} from '../../schemas/operations'
import { DeliveryStatus, WebhookDelivery, type WebhookDelivery as WebhookDeliveryT } from '../../schemas/webhooks'
import { op, withoutCredentials } from '../define'
import { InstanceStats, QrView, SettingsChange, type InstanceStatsT, type QrViewT, type SettingsChangeT } from '../results'
import { deleted, Empty, Id, items, Page, SETTINGS_UPDATED, type PagedT } from './common'

const updateResult = (c: SettingsChangeT): UpdateResultT => ({ acknowledged: true, modifiedCount: c.modified ? 1 : 0, upsertedId: null, upsertedCount: 0, matchedCount: 1 })

export const INSTANCE_OPERATIONS = {
  /* ---------- instances (docs/api-seed.md §4.4, docs/design.md §5) ---------- */

  'instances.create': op<InstanceT>()({
    summary: 'Create an instance',
    audit: 'Created an instance',
    description: 'Body may be empty; `channel` picks `baileys` or `sandbox` (default: CHATAPP_CHANNEL); `name` names it (its bot_name, default "Chatapp Bot").',
    tags: ['instances'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({
      channel: Type.Optional(Type.Union([Type.Literal('baileys'), Type.Literal('sandbox')])),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The instance’s name: its bot_name (extension).' }))
    }),
    output: Instance,
    http: { method: 'POST', path: '/chatapp/createNewChatapp', message: 'Chatapp created successfully!', bodyOptional: true },
    rpc: true
  }),
  'instances.list': op<PagedT<InstanceT>, InstanceT[]>()({
    summary: 'List all instances',
    tags: ['instances'],
    scope: 'account',
    permission: 'instances:read',
    reach: 'reachable',
    input: Page,
    output: Type.Array(Instance),
    http: { method: 'GET', path: '/chatapp', message: 'Chatapp fetched successfully!', query: ['offset', 'limit'], respond: 'paged' },
    rpc: { output: items }
  }),
  'instances.delete': op<void, DeleteResultT>()({
    summary: 'Delete an instance and everything it owns',
    audit: 'Deleted an instance',
    tags: ['instances'],
    scope: 'account',
    permission: 'admin',
    reach: 'reachable',
    instanceField: 'instanceId',
    input: Type.Object({ instanceId: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/chatapp/:instance_id', params: { instance_id: 'instanceId' }, message: 'Chatapp deleted successfully!', wire: deleted, errors: { 404: 'Unknown instance' } },
    rpc: { output: deleted }
  }),
  'instances.init': op<{ status: string }>()({
    summary: 'Start the session (idempotent)',
    tags: ['instances'],
    scope: 'instance',
    permission: 'instances:connect',
    input: withoutCredentials(InitBody),
    output: Type.Object({ status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/init', message: 'Chatapp initialised successfully!', bodyOptional: true, errors: { 409: 'Channel unavailable' } },
    rpc: true
  }),
  'instances.stop': op<{ status: string }>()({
    summary: 'Stop the session (credentials kept; /chatapp/init starts it again)',
    description: 'For an instance stuck connecting or one to pause: no reconnect attempts until init.',
    tags: ['instances'],
    scope: 'instance',
    permission: 'instances:connect',
    input: Type.Object({}),
    output: Type.Object({ status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/stop', message: 'Chatapp stopped successfully!', bodyOptional: true },
    rpc: true
  }),
  'instances.stats': op<InstanceStatsT>()({
    summary: 'Activity counts for today and the last 7 days',
    description: 'Messages in and out, customer messages the bot answered (and the rate), failed sends and failed webhook deliveries; "today" in bot_timezone. Counted over the kept message log (`since`).',
    tags: ['instances'],
    scope: 'instance',
    permission: 'instances:read',
    input: Type.Object({}),
    output: InstanceStats,
    http: { method: 'GET', path: '/chatapp/stats', message: 'Stats fetched successfully!', bodyOptional: true },
    rpc: true
  }),
  'instances.scan': op<{ qr: string; status: string }>()({
    summary: 'The current pairing QR code',
    description: 'A PNG image, or with `format=base64text` the JSON envelope with a data URL. 409 when connected or not started.',
    tags: ['instances'],
    scope: 'instance',
    permission: 'instances:connect',
    input: Type.Object({ format: Type.Optional(Type.String({ description: '`base64text` for the JSON form; otherwise a PNG image.' })) }),
    output: Type.Object({ qrcode: Type.String(), status: Type.String() }),
    http: { method: 'GET', path: '/chatapp/scan', query: ['format'], message: 'QR code fetched successfully', respond: 'qrImage', errors: { 409: 'Connected or not started' } }
  }),
  'pairing.qr': op<QrViewT>()({ summary: 'The QR the instance shows now, as an image (UI)', tags: ['instances'], scope: 'instance', permission: 'instances:connect', input: Empty, output: QrView, rpc: true }),
  'pairing.code': op<{ pairingCode: string; status: string }>()({
    summary: 'Pair by phone number (extension)',
    description: 'Answers a code to type on the phone (Linked devices → Link with phone number) once WhatsApp registered it; 409 with WhatsApp’s reason when it refuses. Needs init first.',
    tags: ['instances'],
    scope: 'instance',
    permission: 'instances:connect',
    input: withoutCredentials(PairingCodeBody),
    output: Type.Object({ pairingCode: Type.String(), status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/pairingCode', message: 'Pairing code generated successfully', errors: { 409: 'Not started, already linked, or refused by WhatsApp' } },
    rpc: true
  }),
  'instances.info': op<{ instance: InstanceT; reason: string | null; limits: SendLimits | null }>()({
    summary: 'Instance info',
    tags: ['instances'],
    scope: 'instance',
    permission: 'instances:read',
    input: Type.Object({ format: Type.Optional(Type.String({ description: 'Accepted for compatibility (the seed sends base64).' })) }),
    output: Type.Object({
      error: Type.Boolean(),
      message: Type.String(),
      instance_data: Type.Object({
        instance_key: Type.String(),
        phone_connected: Type.Boolean(),
        webhookUrl: Type.Union([Type.String(), Type.Null()]),
        user: Type.Object({ id: Type.String(), name: Type.String() }),
        status: Type.String(),
        status_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is in that state (e.g. the last connection error).' }),
        limits: Type.Union([SendLimitsSchema, Type.Null()], {
          description:
            "WhatsApp's outreach limits on the number: capping of messages to people who have not answered, and the reach-out time lock. While either holds, messages to people who never wrote are refused with 409."
        })
      })
    }),
    http: {
      method: 'GET',
      path: '/chatapp/instance',
      query: ['format'],
      message: 'Status checked successfully',
      wire: ({ instance: inst, reason, limits }) => ({
        error: false,
        message: 'Instance fetched successfully',
        instance_data: {
          instance_key: inst.session_id,
          phone_connected: inst.settings.status === 'CONNECTED',
          webhookUrl: inst.settings.webhook.url,
          user: inst.settings.user ?? { id: '', name: '' },
          status: inst.settings.status,
          status_reason: reason,
          limits
        }
      })
    }
  }),
  'instances.health': op<{ reason: string | null; limits: SendLimits | null; assistant: AssistantCircuitT | null }>()({
    summary: 'Why the instance is in its state, and WhatsApp’s outreach limits (UI)',
    tags: ['instances'],
    scope: 'instance',
    permission: 'instances:read',
    input: Empty,
    output: Type.Object({
      reason: Type.Union([Type.String(), Type.Null()]),
      limits: Type.Union([SendLimitsSchema, Type.Null()]),
      assistant: Type.Union([AssistantCircuit, Type.Null()], { description: 'The assistant’s endpoint when it is switched on: open after repeated failures, with the last one’s reason.' })
    }),
    rpc: true
  }),
  'instances.logout': op<{ status: string }>()({
    summary: 'Log out (unlink the device, delete its credentials)',
    audit: 'Logged an instance out of WhatsApp',
    tags: ['instances'],
    scope: 'instance',
    permission: 'admin',
    input: Type.Object({ instanceId: Type.Optional(Id) }),
    output: Type.Object({ status: Type.String() }),
    http: {
      method: 'GET',
      path: '/chatapp/instance/logout/:instance_id',
      params: { instance_id: 'instanceId' },
      message: 'Logged out successfully',
      errors: { 404: 'The credentials do not belong to this instance' }
    },
    rpc: true
  }),

  /* ---------- instance settings (docs/api-seed.md §4.3) ---------- */

  'settings.updateGeneral': op<SettingsChangeT, UpdateResultT>()({
    summary: 'Bot name, time zone, language, default message',
    audit: 'Changed the bot’s name, time zone, language or default message',
    tags: ['instance settings'],
    scope: 'instance',
    permission: 'settings:write',
    input: withoutCredentials(UpdateGeneralBody),
    output: SettingsChange,
    http: { method: 'PUT', path: '/chatapp/updateGeneral', message: SETTINGS_UPDATED, soleInstanceWithoutCredentials: true, wire: updateResult, data: UpdateResult },
    rpc: { output: updateResult }
  }),
  'settings.updateActions': op<SettingsChangeT, UpdateResultT>()({
    summary: 'Behaviour flags',
    audit: 'Changed the bot’s behaviour flags',
    tags: ['instance settings'],
    scope: 'instance',
    permission: 'settings:write',
    input: withoutCredentials(UpdateActionsBody),
    output: SettingsChange,
    http: { method: 'PUT', path: '/chatapp/updateActions', message: SETTINGS_UPDATED, soleInstanceWithoutCredentials: true, wire: updateResult, data: UpdateResult },
    rpc: { output: updateResult }
  }),
  'settings.updateActiveDays': op<SettingsChangeT, UpdateResultT>()({
    summary: 'Days the bot answers',
    audit: 'Changed the days the bot answers',
    tags: ['instance settings'],
    scope: 'instance',
    permission: 'settings:write',
    input: withoutCredentials(UpdateActiveDaysBody),
    output: SettingsChange,
    http: { method: 'PUT', path: '/chatapp/updateActiveDays', message: SETTINGS_UPDATED, soleInstanceWithoutCredentials: true, wire: updateResult, data: UpdateResult },
    rpc: { output: updateResult }
  }),
  'settings.updateActiveHours': op<SettingsChangeT, UpdateResultT>()({
    summary: 'Hours the bot answers',
    audit: 'Changed the hours the bot answers',
    description: '`H:MM`/`HH:MM` or `always` (both). `from` later than `to` is an overnight window.',
    tags: ['instance settings'],
    scope: 'instance',
    permission: 'settings:write',
    input: withoutCredentials(UpdateActiveHoursBody),
    output: SettingsChange,
    http: { method: 'PUT', path: '/chatapp/updateActiveHours', message: SETTINGS_UPDATED, soleInstanceWithoutCredentials: true, wire: updateResult, data: UpdateResult },
    rpc: { output: updateResult }
  }),
  'settings.setWebhook': op<SettingsChangeT, { webhook_url: string | null; events: string[]; requestConfig: Record<string, unknown>; secret: string; send_webhook: boolean }>()({
    summary: 'Webhook URL, events and request options',
    audit: 'Changed the webhook',
    description: 'Deliveries are signed with the Standard Webhooks scheme using the answered `secret`. actions.send_webhook switches sending on or off.',
    tags: ['instance settings'],
    scope: 'instance',
    permission: 'admin',
    input: Type.Object({ ...withoutCredentials(SetWebhookBody).properties, requestConfig: Type.Optional(RequestConfig) }),
    output: SettingsChange,
    http: {
      method: 'PUT',
      path: '/chatapp/setWebhook',
      message: SETTINGS_UPDATED,
      wire: (c) => webhookView(c),
      data: Type.Object({ webhook_url: Type.String(), events: Type.Array(Type.String()), requestConfig: RequestConfig, secret: Type.String(), send_webhook: Type.Boolean() })
    },
    rpc: { output: webhookView }
  }),

  /* ---------- sandbox (docs/design.md §6) ---------- */

  'pairing.sandboxScan': op<{ status: string; bot_number: string; user: { id: string; name: string } }>()({
    summary: 'Simulate the phone scanning the QR code',
    tags: ['sandbox'],
    scope: 'instance',
    permission: 'instances:connect',
    input: Empty,
    output: Type.Object({ status: Type.String(), bot_number: Type.String(), user: Type.Object({ id: Type.String(), name: Type.String() }) }),
    http: { method: 'POST', path: '/chatapp/sandbox/scan', message: 'Sandbox device linked successfully!', bodyOptional: true, errors: { 409: 'Not a sandbox instance, not started, or already linked' } },
    rpc: true
  }),
  'sandbox.removeDevice': op<{ status: string }>()({
    summary: 'Simulate the phone removing this linked device',
    description: 'As the owner tapping Log out under Linked devices: the instance ends LOGGED_OUT with WhatsApp’s reason (notifications and the UI banner follow).',
    tags: ['sandbox'],
    scope: 'instance',
    permission: 'instances:connect',
    input: Empty,
    output: Type.Object({ status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/sandbox/removeDevice', message: 'Sandbox device removed.', bodyOptional: true, errors: { 409: 'Not a connected sandbox instance' } },
    rpc: true
  }),
  'sandbox.network': op<{ status: string }>()({
    summary: 'What the simulated WhatsApp says: numbers not on WhatsApp, sends it refuses, the account’s outreach limits',
    description:
      'Sends to a number in `notOnWhatsApp` fail as on the real network (400); sends to a number in `failSends` are taken and then refused by the simulated server, as WhatsApp refuses some: the message turns `ERROR` with `error_code` 463 (`failSends` replaces the previous list; `[]` clears it). Other sends turn `SERVER_ACK`, then `DELIVERY_ACK`, then `READ` when the customer reads. `limits` is reported as WhatsApp’s `message-capping.update` or reach-out lock would be.',
    tags: ['sandbox'],
    scope: 'instance',
    permission: 'instances:connect',
    input: Type.Object({
      notOnWhatsApp: Type.Optional(Type.Array(Type.String(), { maxItems: 1000 })),
      failSends: Type.Optional(Type.Array(Type.String(), { maxItems: 1000, description: 'Numbers whose sends the simulated server refuses (ERROR 463); replaces the previous list.' })),
      limits: Type.Optional(SendLimitsSchema)
    }),
    output: Type.Object({ status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/sandbox/network', message: 'Sandbox network updated.', errors: { 409: 'Not a started sandbox instance' } },
    rpc: true
  }),
  'sandbox.read': op<{ read: number }>()({
    summary: 'Simulate the customer reading the chat',
    description: 'What the instance sent to `chatId` and was not read yet turns `READ` (blue ticks, `onMessageStatus`), as when the customer opens the chat on their phone. A customer’s message (`/chatapp/sandbox/inbound`) reads the chat too.',
    tags: ['sandbox'],
    scope: 'instance',
    permission: 'instances:connect',
    input: Type.Object({ chatId: Type.String({ minLength: 1, maxLength: 100 }) }),
    output: Type.Object({ read: Type.Integer({ description: 'How many messages turned READ.' }) }),
    http: { method: 'POST', path: '/chatapp/sandbox/read', message: 'Chat read by the customer.', errors: { 409: 'Not a connected sandbox instance' } },
    rpc: true
  }),
  'sandbox.inbound': op<{ message: LoggedMessageT | null; replies: LoggedMessageT[] }>()({
    summary: 'Deliver an inbound message to a sandbox instance',
    description: 'Answers once the message is logged and the bot has handled it, with the bot’s replies to that chat.',
    tags: ['sandbox'],
    scope: 'instance',
    permission: 'instances:connect',
    input: withoutCredentials(SandboxInboundBody),
    output: Type.Object({ message: LoggedMessage, replies: Type.Array(LoggedMessage) }),
    http: { method: 'POST', path: '/chatapp/sandbox/inbound', message: 'Message received successfully', errors: { 409: 'Not a sandbox instance or not connected' } },
    rpc: true
  }),

  /* ---------- webhook deliveries (docs/design.md §11) ---------- */

  'webhookDeliveries.list': op<WebhookDeliveryT[]>()({
    summary: "The instance's webhook deliveries, newest first (extension)",
    description:
      'Pending (queued or waiting for a retry), delivered (kept: the newest 50) and failed ones (4xx, or 24 h of retries; kept for a manual retry). `status` filters, `limit` caps (default 50).',
    tags: ['webhooks'],
    scope: 'instance',
    permission: 'settings:write',
    input: Type.Object({ status: Type.Optional(DeliveryStatus), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })) }),
    output: Type.Array(WebhookDelivery),
    http: { method: 'GET', path: '/chatapp/webhook/deliveries', query: ['status', 'limit'], message: 'Webhook deliveries fetched successfully!' },
    rpc: true
  }),
  'webhookDeliveries.retry': op<WebhookDeliveryT>()({
    summary: 'Send a failed or pending webhook delivery again now (extension)',
    audit: 'Sent a webhook delivery again',
    description: "Requeues the delivery for an attempt now, to the instance's current webhook URL. A delivery past its 24 h window gets one attempt.",
    tags: ['webhooks'],
    scope: 'instance',
    permission: 'settings:write',
    input: Type.Object({ deliveryId: Id }),
    output: WebhookDelivery,
    http: {
      method: 'POST',
      path: '/chatapp/webhook/deliveries/:delivery_id/retry',
      params: { delivery_id: 'deliveryId' },
      message: 'Webhook delivery queued for retry',
      bodyOptional: true,
      errors: { 404: 'Unknown delivery (or one of another instance)', 409: 'Already delivered' }
    },
    rpc: true
  })
} as const

/** The webhook settings as setWebhook answers them. */
function webhookView(c: SettingsChangeT): { webhook_url: string | null; events: string[]; requestConfig: Record<string, unknown>; secret: string; send_webhook: boolean } {
  const s = c.instance.settings
  return { webhook_url: s.webhook.url, events: [...s.webhook.events], requestConfig: s.webhook.requestConfig, secret: s.webhook.secret, send_webhook: s.actions.send_webhook }
}
