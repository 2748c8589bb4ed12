/**
 * The service call of every operation in the table (src/shared/operations/table/): one line each,
 * no rule of its own. The compiler checks there is exactly one runner per operation, that it takes the
 * operation's input and answers its result type. Both faces (HTTP and the UI contract) run these.
 *
 * A runner gets the authenticated instance for `instance`-scoped operations (the face resolved it:
 * from `session_id`/`access_token` over HTTP, from `instanceId` over the UI contract).
 */
import type { Static } from 'typebox'
import type { Core } from '../core'
import { notFound } from '../errors'
import { resolveChat } from '../services/messages/outbound'
import type { Stored } from '../store/repos'
import { qrDataUrl } from '../media/qr-image'
import { APP_VERSION } from '../version'
import { MEDIA_KIND, OPERATIONS, type OperationName, type Operations } from '../../shared/operations/table'
import type { AppInfoT } from '../../shared/operations/results'
import { unsupportedUpdates, type UpdatesPort } from '../../shared/operations/updates'
import type { ConnectionStatus, Instance } from '../../shared/schemas/records'
import { instanceViewFor, mayReach, sentByOf, type Caller } from '../../shared/access'
import { apiKeyView, inviteView, meView, sessionView, staffView } from '../services/people'

/** What only the running app knows (the UI's `app.info`). */
export interface AppFacts {
  baseUrl: () => string
  mode: AppInfoT['mode']
  defaultChannel: AppInfoT['defaultChannel']
  /** The data folder (CHATAPP_DATA_DIR), shown in About and the first-run welcome. */
  dataDir?: string
  /** The desktop shell's updater; none in the headless server. */
  updates?: UpdatesPort
}

/** What a runner works with: the core's services and the app's facts. */
export interface OperationContext {
  core: Core
  app: AppFacts
  /** `desk`: a person in this app's UI (its sends pause the bot for the chat); unset: a script over HTTP. */
  face?: 'desk'
  /** Who is calling (the face authenticated them); the owner when unset (the desktop app). */
  caller?: Caller
  /** The client's address (HTTP), for the audit log and logins. */
  ip?: string | null
  /** The web session token the request came with (to end it on logout). */
  sessionToken?: string
}

/** The caller of a context: the desktop app's owner when the face named none. */
export function callerOf(ctx: OperationContext): Caller {
  return ctx.caller ?? { kind: 'owner', via: 'desktop' }
}

/** The message sends for the caller: labelled `desk` for the UI, `api` for scripts. */
function sender(ctx: OperationContext) {
  return ctx.core.messages.as(ctx.face === 'desk' ? 'desk' : 'api', sentByOf(callerOf(ctx)))
}

/** The input of an operation, as validated against its schema. */
export type OperationInput<N extends OperationName> = Static<Operations[N]['input']>
/** The runner's result of an operation. */
export type OperationResult<N extends OperationName> = Exclude<Operations[N]['_result'], undefined>
type InstanceOf<N extends OperationName> = Operations[N]['scope'] extends 'instance' ? Stored<Instance> : undefined

export type Runner<N extends OperationName> = (ctx: OperationContext, input: OperationInput<N>, inst: InstanceOf<N>) => Promise<OperationResult<N>> | OperationResult<N>

type MediaOperation = keyof typeof MEDIA_KIND

/** The fields every multipart media send has (docs/api-seed.md §4.5); audio adds `ptt`, documents `filename`. */
interface MediaSendInput {
  chatId: string
  caption?: string
  filename?: string
  ptt?: boolean | string
  file: { path: string; filename: string; size: number; declaredMimetype?: string }
}

/** The media sends of the HTTP face: the uploaded file, checked to fit the endpoint's kind. */
function mediaRunner(name: MediaOperation) {
  return (ctx: OperationContext, input: MediaSendInput, inst: Stored<Instance>) => {
    const { file } = input
    return sender(ctx).sendMedia(
      inst,
      input.chatId,
      MEDIA_KIND[name],
      { path: file.path, size: file.size, mimetype: file.declaredMimetype ?? 'application/octet-stream', fileName: file.filename },
      { caption: input.caption, fileName: input.filename || file.filename, voiceNote: input.ptt === true || input.ptt === 'true' },
      OPERATIONS[name].http?.path ?? name
    )
  }
}

/** The updater of the app, or one that answers why there is none (the headless server). */
function updatesOf(app: AppFacts): Omit<UpdatesPort, 'subscribe'> {
  if (app.updates) return app.updates
  const status = () => unsupportedUpdates(APP_VERSION, 'The headless server is updated where it runs (git pull, npm ci); the desktop app updates itself.')
  return { status, check: async () => status(), download: async () => status(), setAutoDownload: async () => status(), restart: async () => status() }
}

/** `inst` showing `status` (the status a client reads: ClusterView.liveStatuses) instead of the saved one. */
function withStatus<I extends { settings: { status: ConnectionStatus } }>(inst: I, status: ConnectionStatus | undefined): I {
  return status === undefined || status === inst.settings.status ? inst : { ...inst, settings: { ...inst.settings, status } }
}

/** The instances the caller may reach (staff and keys may be limited to some). */
function reachable(ctx: OperationContext): Stored<Instance>[] {
  const caller = callerOf(ctx)
  return ctx.core.instances.list().filter((i) => mayReach(caller, i._id))
}

/**
 * The instances a request about `inst` spans: `type=all` means every instance the caller may reach
 * (docs/design.md §21 "Instance limits"), `inst` first; otherwise `inst` alone.
 */
function spanOf(ctx: OperationContext, inst: Stored<Instance>, all: boolean): string[] {
  return customerScope(ctx, inst, all ? 'all' : undefined).map((i) => i._id)
}

/** A customer's data operation's instances: the one named, or (`type=all`) every one the caller may reach, the named first. */
function customerScope(ctx: OperationContext, inst: Stored<Instance>, type: 'all' | undefined): Stored<Instance>[] {
  return type === 'all' ? [inst, ...reachable(ctx).filter((i) => i._id !== inst._id)] : [inst]
}

/** The instance `id` when the caller may reach it; 404 otherwise, as for an unknown one (its existence is not theirs to learn). */
function reachableOne(ctx: OperationContext, id: string): Stored<Instance> {
  const inst = ctx.core.instances.get(id)
  if (!mayReach(callerOf(ctx), inst._id)) throw notFound('Instance')
  return inst
}

/** The inbox's assignee filter for `assigned` (`mine` is the caller: a staff member, or the owner). */
function assigneeFilter(caller: Caller, assigned: 'mine' | 'unassigned' | 'all' | undefined): { assignee?: string | null } {
  if (assigned === 'unassigned') return { assignee: null }
  if (assigned === 'mine') return { assignee: caller.kind === 'staff' ? caller.id : caller.kind === 'owner' ? 'owner' : `key:${caller.id}` }
  return {}
}

/** A page of `list`: `limit` records after `offset` (the table's defaults: 0 and 1,000), and the total. */
async function paged<R>(records: Promise<readonly R[]> | readonly R[], { offset = 0, limit = 1000 }: { offset?: number; limit?: number }): Promise<{ items: R[]; total: number }> {
  const list = await records
  return { items: list.slice(offset, offset + limit), total: list.length }
}

export const RUNNERS: { [N in OperationName]: Runner<N> } = {
  'app.info': ({ app }) => ({ version: APP_VERSION, baseUrl: app.baseUrl(), mode: app.mode, defaultChannel: app.defaultChannel }),
  'apiToken.get': ({ core }) => ({ token: core.account.token(), fixed: core.account.fixed }),
  'apiToken.regenerate': async ({ core }) => ({ token: await core.account.regenerate() }),
  'appSettings.get': ({ core }) => ({ smtp: core.appSettings.smtp() }),
  'appSettings.setSmtp': async ({ core }, { smtp }) => ({ smtp: await core.appSettings.setSmtp(smtp) }),

  'auth.login': async ({ core }, { code }) => ({ token: await core.account.redeemLoginCode(code) }),
  'instances.create': ({ core }, { channel, name }) => core.instances.create(channel, name),
  'instances.list': async (ctx, page) => {
    const insts = reachable(ctx)
    const live = await ctx.core.cluster.liveStatuses(insts)
    return paged(insts.map((i) => instanceViewFor(callerOf(ctx), withStatus(i, live.get(i._id)))), page)
  },
  'instances.delete': ({ core }, { instanceId }) => core.instances.delete(instanceId),
  'instances.init': async ({ core }, { config }, inst) => ({ status: await core.connection.init(inst, config) }),
  'instances.scan': ({ core }, _input, inst) => core.connection.currentQr(inst),
  'pairing.qr': async ({ core }, _input, inst) => {
    const qr = inst.settings.status === 'QR' ? core.sessions.latestQr(inst._id) : undefined
    return { status: inst.settings.status, qrDataUrl: qr ? await qrDataUrl(qr) : null }
  },
  'pairing.code': ({ core }, { phone }, inst) => core.connection.pairingCode(inst, phone),
  'instances.info': async (ctx, _input, inst) => {
    const { reason, limits } = ctx.core.connection.health(inst._id)
    const live = await ctx.core.cluster.liveStatuses([inst])
    return { instance: instanceViewFor(callerOf(ctx), withStatus(inst, live.get(inst._id))), reason, limits }
  },
  'instances.health': async ({ core }, _input, inst) => {
    const { reason, limits } = core.connection.health(inst._id)
    return { reason, limits, assistant: await core.assistant.health(inst._id) }
  },
  'instances.logout': async ({ core }, { instanceId }, inst) => {
    // The path names the instance the credentials must belong to (docs/design.md §5).
    if (instanceId !== undefined && instanceId !== inst._id) throw notFound('Instance')
    return { status: await core.connection.logout(inst) }
  },

  'settings.updateGeneral': ({ core }, input, inst) => core.settings.updateGeneral(inst._id, input),
  'settings.updateActions': ({ core }, input, inst) => core.settings.updateActions(inst._id, input),
  'settings.updateActiveDays': ({ core }, input, inst) => core.settings.updateActiveDays(inst._id, input),
  'settings.updateActiveHours': ({ core }, input, inst) => core.settings.updateActiveHours(inst._id, input),
  'settings.setWebhook': ({ core }, input, inst) => core.settings.setWebhook(inst._id, input),

  'intents.create': ({ core }, input, inst) => core.intents.create(inst, input),
  'intents.list': ({ core }, page, inst) => paged(core.intents.list(inst), page),
  'intents.get': ({ core }, { id }, inst) => core.intents.get(inst, id),
  'intents.update': ({ core }, { id, ...patch }, inst) => core.intents.update(inst, id, patch),
  // The seed lists DELETE /intent/{id} under surveys too: a survey step's id deletes that step (docs/design.md §17).
  'intents.delete': async ({ core }, { id }, inst) => (!(await core.intents.exists(inst, id)) && (await core.surveys.exists(inst, id)) ? core.surveys.delete(inst, id) : core.intents.delete(inst, id)),

  'surveys.create': ({ core }, input, inst) => core.surveys.create(inst, input),
  'surveys.list': ({ core }, page, inst) => paged(core.surveys.list(inst), page),
  'surveys.get': ({ core }, { id }, inst) => core.surveys.get(inst, id),
  'surveys.update': ({ core }, { id, ...patch }, inst) => core.surveys.update(inst, id, patch),
  'surveys.delete': ({ core }, { id }, inst) => core.surveys.delete(inst, id),
  'surveys.reorder': ({ core }, { stepIds }, inst) => core.surveys.reorder(inst, stepIds),
  'surveys.responses': ({ core }, { id, format }, inst) => (format === 'csv' ? core.surveys.responsesCsv(inst, id) : core.surveys.responses(inst, id)),
  'surveys.responsesCsv': ({ core }, { id }, inst) => core.surveys.responsesCsv(inst, id),

  'attachments.uploadFile': ({ core }, { file }, inst) => core.attachments.create(inst, file),
  'attachments.upload': ({ core }, { filename, mimetype, dataBase64 }, inst) =>
    core.attachments.createFromBytes(inst, { filename, mimetype, bytes: Buffer.from(dataBase64, 'base64') }),
  'attachments.list': ({ core }, page, inst) => paged(core.attachments.list(inst), page),
  'attachments.get': ({ core }, { id }, inst) => core.attachments.get(inst, id),
  'attachments.file': async ({ core }, { id }, inst) => {
    const attachment = await core.attachments.get(inst, id)
    return { attachment, path: (await core.attachments.source(attachment)).path }
  },
  'attachments.delete': ({ core }, { id }, inst) => core.attachments.delete(inst, id),

  'messages.sendText': (ctx, input, inst) => sender(ctx).sendText(inst, input),
  'messages.react': ({ core }, input, inst) => core.changes.react(inst, input),
  'messages.sendImage': mediaRunner('messages.sendImage'),
  'messages.sendVideo': mediaRunner('messages.sendVideo'),
  'messages.sendAudio': mediaRunner('messages.sendAudio'),
  'messages.sendDocument': mediaRunner('messages.sendDocument'),
  'messages.sendMedia': (ctx, input, inst) => sender(ctx).sendAttachment(inst, input),
  'messages.sendFileUrl': (ctx, input, inst) => sender(ctx).sendFileUrl(inst, input),
  'messages.sendButtons': (ctx, input, inst) => sender(ctx).sendButtons(inst, input),
  'messages.sendContact': (ctx, input, inst) => sender(ctx).sendContact(inst, input),
  'messages.sendList': (ctx, input, inst) => sender(ctx).sendList(inst, input),
  'messages.sendMediaButtons': (ctx, input, inst) => sender(ctx).sendMediaButton(inst, input),
  'messages.sendTextDeprecated': (ctx, { to, message }, inst) => sender(ctx).sendPlainText(inst, to, message, 'to'),
  'messages.media': ({ core }, { id }, inst) => core.log.inboundMedia(inst, id),
  'messages.list': ({ core }, query, inst) => core.log.list(inst, query),
  'messages.fetchHistory': ({ core }, input, inst) => core.phoneHistory.fetch(inst, input),
  // The original's `type=all` reaches every instance of the account: here every one the caller may reach.
  'messageLog.list': (ctx, { type, page, limit }, inst) => ctx.core.log.page(spanOf(ctx, inst, type === 'all'), page ?? 1, limit ?? 10),
  // The original finds an entry of any instance by id: of any the caller may reach (404 otherwise, as for an unknown id).
  'messageLog.get': (ctx, { id }, inst) => ctx.core.log.record(spanOf(ctx, inst, true), id),
  'messages.preview': ({ core }, { id }, inst) => core.log.preview(inst, id),

  'contacts.create': ({ core }, input, inst) => core.contacts.create(inst, input),
  'contacts.list': (ctx, { type, q, group_id, label, offset, limit }, inst) =>
    ctx.core.contacts.page(spanOf(ctx, inst, type === 'all'), { ...(q ? { q } : {}), ...(group_id ? { groupId: group_id } : {}), ...(label ? { label } : {}) }, offset ?? 0, limit ?? 1000),
  'contacts.get': ({ core }, { id }, inst) => core.contacts.get(inst, id),
  'contacts.update': ({ core }, { id, ...change }, inst) => core.contacts.update(inst, id, change),
  'contacts.delete': ({ core }, { id }, inst) => core.contacts.delete(inst, id),
  'contacts.import': ({ core }, { csv, mapping, group_id }, inst) => core.contacts.importCsv(inst, csv, mapping, group_id),
  'contacts.export': (ctx, { type }, inst) => ctx.core.contacts.exportCsv(spanOf(ctx, inst, type === 'all')),
  'settings.retention': ({ core }, input, inst) => core.settings.updateRetention(inst._id, input),
  // The desk downloads one object; the HTTP face streams the file as it is read (flat memory).
  'customers.export': async (ctx, { number, format, type }, inst) => {
    const insts = customerScope(ctx, inst, type)
    if (ctx.face === 'desk') return format === 'csv' ? ctx.core.customers.exportCsv(insts, number) : ctx.core.customers.export(insts, number)
    if (format !== 'csv') return { json: await ctx.core.customers.exportJson(insts, number) }
    const { fileName, stream } = await ctx.core.customers.exportCsvStream(insts, number)
    return { fileName, csvStream: stream }
  },
  'customers.exportCsv': (ctx, { number, type }, inst) => ctx.core.customers.exportCsv(customerScope(ctx, inst, type), number),
  'customers.erase': (ctx, { number, type }, inst) => ctx.core.customers.erase(customerScope(ctx, inst, type), number, ctx.face === 'desk' ? 'the desk (owner)' : 'a script (API token)'),
  'backups.download': ({ core }) => core.backups.download(),
  'backups.restore': ({ core }, { file }) => core.backups.restore(file.path),
  'backups.status': ({ core }) => core.backups.status(),
  'cluster.get': ({ core }) => core.cluster.view(),
  'backups.settings': ({ core }, change) => core.backups.configure(change),
  'backups.now': ({ core }) => core.backups.now(),
  'backups.restoreStored': ({ core }, { name }) => core.backups.restoreStored(name),
  'backups.read': ({ core }, { name, offset, length }) => core.backups.read(name, offset, length),
  'backups.upload': ({ core }, { uploadId, dataBase64 }) => core.backups.upload(uploadId, dataBase64),
  'backups.restoreUpload': ({ core }, { uploadId }) => core.backups.restoreUpload(uploadId),
  'contactGroups.create': ({ core }, { title }, inst) => core.contacts.createGroup(inst, title),
  'contactGroups.list': (ctx, { type }, inst) => ctx.core.contacts.groups(spanOf(ctx, inst, type === 'all')),
  'contactGroups.get': ({ core }, { id }, inst) => core.contacts.group(inst, id),
  'contactGroups.update': ({ core }, { id, title }, inst) => core.contacts.renameGroup(inst, id, title),
  'contactGroups.delete': ({ core }, { id }, inst) => core.contacts.deleteGroup(inst, id),
  'inbox.list': (ctx, { instance_id, assigned, ...filter }) =>
    ctx.core.inbox.list(instance_id ? [reachableOne(ctx, instance_id)] : reachable(ctx), { ...filter, ...assigneeFilter(callerOf(ctx), assigned) }),
  'inbox.assign': (ctx, { chatId, staff_id, round_robin }, inst) =>
    round_robin ? ctx.core.assignments.roundRobin(inst._id, resolveChat(chatId), callerOf(ctx)) : ctx.core.assignments.assign(inst._id, resolveChat(chatId), staff_id ?? null, callerOf(ctx)),
  'inbox.timeline': ({ core }, { chatId }, inst) => core.assignments.timeline(inst._id, resolveChat(chatId)),
  'inbox.get': ({ core }, { chatId }, inst) => core.inbox.get(inst._id, resolveChat(chatId)),
  'inbox.labels': ({ core }, { chatId, labels }, inst) => core.inbox.setLabels(inst, resolveChat(chatId), labels),
  'labels.list': ({ core }) => core.labels.list(),
  'labels.create': ({ core }, { name, color }) => core.labels.create(name, color),
  'labels.update': ({ core }, { id, ...change }) => core.labels.update(id, change),
  'labels.delete': ({ core }, { id }) => core.labels.delete(id),
  'inbox.read': ({ core, face }, { chatId }, inst) => core.inbox.markRead(inst._id, resolveChat(chatId), face ?? 'api'),
  'inbox.resolve': ({ core, face }, { chatId }, inst) => core.inbox.resolve(inst._id, resolveChat(chatId), face ?? 'api'),
  'inbox.reopen': ({ core, face }, { chatId }, inst) => core.inbox.reopen(inst._id, resolveChat(chatId), face ?? 'api'),
  'quickReplies.list': ({ core }) => core.quickReplies.list(),
  'quickReplies.create': ({ core }, input) => core.quickReplies.create(input),
  'quickReplies.update': ({ core }, { id, ...change }) => core.quickReplies.update(id, change),
  'quickReplies.delete': ({ core }, { id }) => core.quickReplies.delete(id),

  'broadcasts.create': ({ core }, input, inst) => core.broadcasts.create(inst, input),
  'broadcasts.list': ({ core }, _input, inst) => core.broadcasts.list(inst),
  'broadcasts.get': ({ core }, { id }, inst) => core.broadcasts.get(inst, id),
  'broadcasts.delete': ({ core }, { id }, inst) => core.broadcasts.delete(inst, id),
  'broadcasts.pause': ({ core }, { id }, inst) => core.broadcasts.pause(inst, id),
  'broadcasts.resume': ({ core }, { id }, inst) => core.broadcasts.resume(inst, id),
  'broadcasts.cancel': ({ core }, { id }, inst) => core.broadcasts.cancel(inst, id),
  'schedules.create': ({ core }, input, inst) => core.schedules.create(inst, input),
  'schedules.list': ({ core }, _input, inst) => core.schedules.list(inst),
  'schedules.update': ({ core }, { id, ...change }, inst) => core.schedules.update(inst, id, change),
  'schedules.delete': ({ core }, { id }, inst) => core.schedules.delete(inst, id),
  'outreach.status': ({ core }, _input, inst) => core.broadcasts.status(inst),
  'settings.outreach': ({ core }, input, inst) => core.settings.updateOutreach(inst._id, input),
  'sandbox.network': async ({ core }, input, inst) => (core.sandbox.network(inst, input), { status: 'ok' }),
  'sandbox.read': ({ core }, { chatId }, inst) => core.sandbox.read(inst, chatId),

  'pairing.sandboxScan': async ({ core }, _input, inst) => {
    const account = await core.sandbox.scan(inst)
    return { status: 'CONNECTED', bot_number: account.phone, user: { id: account.id, name: account.name } }
  },
  'sandbox.inbound': ({ core }, input, inst) => core.sandbox.inbound(inst, input),
  'sandbox.removeDevice': async ({ core }, _input, inst) => (await core.sandbox.removeDevice(inst), { status: 'LOGGED_OUT' }),

  'bot.activity': ({ core }, { limit }, inst) => core.bot.activity(inst._id, limit),
  'assistant.get': ({ core }, _input, inst) => core.assistant.get(inst),
  'assistant.update': ({ core }, body, inst) => core.assistant.update(inst, body),
  'assistant.ask': ({ core }, body, inst) => core.assistant.ask(inst, body),
  'assistant.usage': ({ core }, { days }, inst) => core.assistant.usage(inst, days ?? 30),
  'knowledge.create': ({ core }, body, inst) => core.knowledge.create(inst, body),
  'knowledge.list': ({ core }, page, inst) => core.knowledge.list(inst, page),
  'knowledge.get': ({ core }, { id }, inst) => core.knowledge.get(inst, id),
  'knowledge.update': ({ core }, { id, ...body }, inst) => core.knowledge.update(inst, id, body),
  'knowledge.delete': ({ core }, { id }, inst) => core.knowledge.remove(inst, id),
  'knowledge.importFile': ({ core }, { file, title }, inst) => core.knowledge.importFile(inst, { path: file.path, name: file.filename, size: file.size }, title),
  'knowledge.import': ({ core }, { filename, dataBase64, title }, inst) => core.knowledge.import(inst, { name: filename, bytes: Buffer.from(dataBase64, 'base64') }, title),
  'handoff.list': ({ core }, _input, inst) => core.handoff.list(inst._id),
  'handoff.pause': (ctx, { chatId, minutes }, inst) =>
    ctx.core.handoff.pause(inst._id, resolveChat(chatId), minutes ?? null, 'manual', ctx.face === 'desk' ? 'desk' : 'api', undefined, sentByOf(callerOf(ctx))),
  'handoff.resume': async ({ core }, { chatId }, inst) => ({ resumed: await core.handoff.resume(inst._id, resolveChat(chatId)) }),
  'handoff.settings': ({ core }, input, inst) => core.settings.updateHandoff(inst._id, input),
  'settings.away': ({ core }, input, inst) => core.settings.updateAway(inst._id, input),
  'settings.optOut': ({ core }, input, inst) => core.settings.updateOptOut(inst._id, input),
  'settings.openingHours': ({ core }, input, inst) => core.settings.updateOpeningHours(inst._id, input),
  'instances.stats': ({ core }, _input, inst) => core.health.stats(inst),
  'instances.stop': async ({ core }, _input, inst) => ({ status: await core.connection.stop(inst) }),
  'surveys.markHandled': ({ core }, { run_id, handled }, inst) => core.surveys.markHandled(inst, run_id, handled),
  'webhookDeliveries.list': ({ core }, filter, inst) => core.webhooks.list(inst._id, filter),
  'webhookDeliveries.retry': ({ core }, { deliveryId }, inst) => core.webhooks.retry(inst._id, deliveryId),

  'auth.password': async ({ core, ip }, { login, password }) => sessionView(await core.people.staff.login(login, password, ip ?? null)),
  'auth.methods': async ({ core }) => ({ passwords: (await core.people.staff.list()).some((m) => m.active) }),
  'auth.acceptInvite': async ({ core }, { code, password }) => {
    const m = await core.people.staff.acceptInvite(code, password)
    return { login: m.login, name: m.name }
  },
  'auth.logout': async ({ core, sessionToken, ip }, { everywhere }) => ({ signed_out: sessionToken ? await core.people.staff.logout(sessionToken, everywhere === true, ip ?? null) : 0 }),
  'auth.me': (ctx) => meView(callerOf(ctx)),
  'staff.create': async ({ core, app }, { instance_ids, ...input }) => {
    const { member, code } = await core.people.staff.create({ ...input, instanceIds: instance_ids })
    return { ...staffView(member), ...inviteView(member.id, code, app.baseUrl(), core.clock.now()) }
  },
  'staff.list': async ({ core }) => (await core.people.staff.list()).map(staffView),
  'staff.update': async ({ core }, { id, instance_ids, ...change }) => staffView(await core.people.staff.update(id, { ...change, instanceIds: instance_ids })),
  'staff.delete': async ({ core }, { id }) => (await core.people.staff.remove(id), { id }),
  'staff.invite': async ({ core, app }, { id }) => inviteView(id, await core.people.staff.invite(id), app.baseUrl(), core.clock.now()),
  'staff.signOut': async ({ core }, { id }) => ({ signed_out: await core.people.staff.signOutEverywhere(id) }),
  'apiKeys.create': async ({ core }, { instance_ids, ...input }) => {
    const { record, key } = await core.people.keys.create({ ...input, instanceIds: instance_ids })
    return { ...apiKeyView(record), key }
  },
  'apiKeys.list': async ({ core }) => (await core.people.keys.list()).map(apiKeyView),
  'apiKeys.delete': async ({ core }, { id }) => (await core.people.keys.revoke(id), { id }),
  'audit.list': ({ core }, { limit, before, kind }) => core.people.auditLog({ limit: limit ?? 100, before, kind }),

  'app.about': ({ app }) => ({ version: APP_VERSION, dataDir: app.dataDir ?? null }),
  'updates.status': ({ app }) => updatesOf(app).status(),
  'updates.check': ({ app }) => updatesOf(app).check(),
  'updates.download': ({ app }) => updatesOf(app).download(),
  'updates.setAutoDownload': ({ app }, { enabled }) => updatesOf(app).setAutoDownload(enabled),
  'updates.restart': ({ app }, { force }) => updatesOf(app).restart(force === true)
}
