/**
 * The UI contract implemented once, over the core services (never over the HTTP API). Both
 * transports — Electron IPC and the headless server's `/rpc` — call these handlers through
 * {@link dispatch}, which validates the input against the contract's schema first.
 *
 * Errors are the services' AppErrors (DESIGN.md §4 codes); transports turn them into
 * {@link ContractErrorShape}s.
 */
import { createHash } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import QRCode from 'qrcode'
import type { Core } from '../core'
import { newObjectId } from '../ids'
import { AppError, invalid } from '../services/errors'
import { strictAjv, ajvProblems, validationError } from '../api/validation'
import type { Instance } from '../../shared/schemas/records'
import {
  CONTRACT,
  type AppInfo,
  type ContractErrorShape,
  type ContractHandlers,
  type ContractMethod,
  type ContractResult,
  type SmtpView
} from '../../shared/contract'
import type { SmtpSettings } from '../store/storage'
import { summariseChats } from './chat-summary'
import { APP_VERSION } from '../version'

export interface HandlerOptions {
  /** Base URL of the local HTTP API (known once it listens). */
  baseUrl: () => string
  mode: AppInfo['mode']
  defaultChannel: AppInfo['defaultChannel']
}

/** Strips the contract's `instanceId` (and `id`) and answers the instance and the rest. */
function split<T extends { instanceId: string }>(core: Core, input: T): [Instance, Omit<T, 'instanceId'>] {
  const { instanceId, ...rest } = input
  return [core.instances.get(instanceId), rest]
}

function smtpView(s: SmtpSettings | null): SmtpView | null {
  if (!s) return null
  return { host: s.host, port: s.port, secure: s.secure, user: s.user, from: s.from, hasPassword: Boolean(s.pass) }
}

/** Builds the contract's handlers over a running core. */
export function createHandlers(core: Core, opts: HandlerOptions): ContractHandlers {
  const I = core.instances
  return {
    async 'app.info'() {
      return {
        version: APP_VERSION,
        baseUrl: opts.baseUrl(),
        mode: opts.mode,
        defaultChannel: opts.defaultChannel
      }
    },

    async 'instances.list'() {
      return I.list()
    },
    async 'instances.create'({ channel }) {
      return I.create(channel)
    },
    async 'instances.delete'({ instanceId }) {
      return I.delete(instanceId)
    },
    async 'instances.init'({ instanceId }) {
      return I.init(I.get(instanceId), undefined)
    },
    async 'instances.health'({ instanceId }) {
      const { status_reason, limits } = I.info(I.get(instanceId)).instance_data
      return { reason: status_reason, limits }
    },
    async 'instances.logout'({ instanceId }) {
      return I.logout(I.get(instanceId))
    },

    async 'pairing.qr'({ instanceId }) {
      const inst = I.get(instanceId)
      const qr = inst.settings.status === 'QR' ? core.sessions.latestQr(inst._id) : undefined
      return { status: inst.settings.status, qrDataUrl: qr ? await QRCode.toDataURL(qr, { margin: 1, width: 320 }) : null }
    },
    async 'pairing.code'({ instanceId, phone }) {
      const { pairingCode } = await I.pairingCode(I.get(instanceId), phone)
      return { pairingCode }
    },
    async 'pairing.sandboxScan'({ instanceId }) {
      const inst = I.get(instanceId)
      const account = await core.sandbox.scan(inst)
      return { bot_number: account.phone }
    },

    async 'settings.updateGeneral'(input) {
      const [inst, body] = split(core, input)
      return I.updateGeneral(inst, body)
    },
    async 'settings.updateActions'(input) {
      const [inst, body] = split(core, input)
      return I.updateActions(inst, body)
    },
    async 'settings.updateActiveDays'(input) {
      const [inst, body] = split(core, input)
      return I.updateActiveDays(inst, body)
    },
    async 'settings.updateActiveHours'(input) {
      const [inst, body] = split(core, input)
      return I.updateActiveHours(inst, body)
    },
    async 'settings.setWebhook'(input) {
      const [inst, body] = split(core, input)
      const w = await I.setWebhook(inst, body)
      return { webhook_url: w.webhook_url, events: w.events, secret: w.secret }
    },

    async 'webhookDeliveries.list'({ instanceId }) {
      I.get(instanceId)
      return core.webhooks.list(instanceId)
    },
    async 'webhookDeliveries.retry'({ instanceId, deliveryId }) {
      I.get(instanceId)
      return core.webhooks.retry(instanceId, deliveryId)
    },

    async 'intents.list'({ instanceId }) {
      return core.intents.list(I.get(instanceId))
    },
    async 'intents.create'(input) {
      const [inst, body] = split(core, input)
      return core.intents.create(inst, body)
    },
    async 'intents.update'(input) {
      const [inst, { id, ...body }] = split(core, input)
      return core.intents.update(inst, id, body)
    },
    async 'intents.delete'({ instanceId, id }) {
      return core.intents.delete(I.get(instanceId), id)
    },

    async 'surveys.list'({ instanceId }) {
      return core.surveys.list(I.get(instanceId))
    },
    async 'surveys.create'(input) {
      const [inst, body] = split(core, input)
      return core.surveys.create(inst, body)
    },
    async 'surveys.update'(input) {
      const [inst, { id, ...body }] = split(core, input)
      return core.surveys.update(inst, id, body)
    },
    async 'surveys.delete'({ instanceId, id }) {
      return core.surveys.delete(I.get(instanceId), id)
    },
    async 'surveys.reorder'({ instanceId, stepIds }) {
      const inst = I.get(instanceId)
      const steps = stepIds.map((id) => core.surveys.get(inst, id))
      const title = steps[0]!.title
      if (steps.some((s) => s.title !== title)) throw invalid('stepIds', 'must all belong to one survey')
      if (new Set(stepIds).size !== stepIds.length) throw invalid('stepIds', 'must not repeat a step')
      // Only rewrite steps whose position changed, so unchanged steps keep their revision.
      for (const [i, step] of steps.entries()) {
        if (step.sort_id !== i + 1) await core.surveys.update(inst, step._id, { sort_id: i + 1 })
      }
      return core.surveys.stepsOf(inst, title)
    },
    async 'surveys.responses'({ instanceId, id }) {
      return core.surveys.responses(I.get(instanceId), id)
    },
    async 'surveys.responsesCsv'({ instanceId, id }) {
      const inst = I.get(instanceId)
      const title = core.surveys.get(inst, id).title
      return { fileName: `${title.replace(/[^\w-]+/g, '_')}-responses.csv`, csv: core.surveys.responsesCsv(inst, id) }
    },

    async 'attachments.list'({ instanceId }) {
      return core.attachments.list(I.get(instanceId))
    },
    async 'attachments.upload'({ instanceId, filename, mimetype, dataBase64 }) {
      const inst = I.get(instanceId)
      const bytes = Buffer.from(dataBase64, 'base64')
      if (bytes.length === 0) throw invalid('dataBase64', 'must hold the file (it is empty)')
      if (bytes.length > core.limits.fileBytes) throw new AppError('PAYLOAD_TOO_LARGE', 'The file is larger than the limit.')
      const path = join(core.storage.paths.tmp, `ui-${newObjectId()}`)
      await writeFile(path, bytes)
      try {
        const sha256 = createHash('sha256').update(bytes).digest('hex')
        return await core.attachments.create(inst, { path, filename, size: bytes.length, sha256, declaredMimetype: mimetype })
      } finally {
        await rm(path, { force: true })
      }
    },
    async 'attachments.delete'({ instanceId, id }) {
      return core.attachments.delete(I.get(instanceId), id)
    },

    async 'messages.list'(input) {
      const [inst, query] = split(core, input)
      return core.messages.list(inst, query)
    },
    async 'messages.sendFileUrl'(input) {
      const [inst, body] = split(core, input)
      return { id: (await core.messages.sendFileUrl(inst, body)).key.id }
    },
    async 'messages.sendMediaButtons'(input) {
      const [inst, body] = split(core, input)
      return { id: (await core.messages.sendMediaButton(inst, body)).key.id }
    },
    async 'bot.activity'({ instanceId }) {
      return core.bot.activity(I.get(instanceId)._id)
    },
    async 'messages.chats'({ instanceId }) {
      const inst = I.get(instanceId)
      return summariseChats(await core.storage.messages.list(inst._id, { limit: Number.MAX_SAFE_INTEGER }))
    },
    async 'messages.sendText'(input) {
      const [inst, body] = split(core, input)
      const r = await core.messages.sendText(inst, body)
      return { sent: (r.message ? 1 : 0) + r.media.length + (r.location ? 1 : 0) + (r.contact ? 1 : 0) }
    },
    async 'messages.sendMedia'({ instanceId, chatId, kind, attachmentId, caption, voiceNote }) {
      const inst = I.get(instanceId)
      let a
      try {
        a = core.attachments.get(inst, attachmentId)
      } catch {
        throw invalid('attachmentId', 'names no attachment of this instance')
      }
      const sent = await core.messages.sendMedia(
        inst,
        chatId,
        kind,
        { path: core.attachments.filePath(a._id), mimetype: a.mimetype, size: a.size, fileName: a.filename },
        { caption, fileName: a.filename, voiceNote },
        `a ${kind} message`
      )
      return { id: sent.key.id }
    },
    async 'messages.sendButtons'(input) {
      const [inst, body] = split(core, input)
      return { id: (await core.messages.sendButtons(inst, body)).key.id }
    },
    async 'messages.sendList'(input) {
      const [inst, body] = split(core, input)
      return { id: (await core.messages.sendList(inst, body)).key.id }
    },
    async 'messages.sendContact'(input) {
      const [inst, body] = split(core, input)
      return { id: (await core.messages.sendContact(inst, body)).key.id }
    },

    async 'sandbox.inbound'({ instanceId, chatId, message, pushName }) {
      const { message: logged } = await core.sandbox.inbound(I.get(instanceId), { chatId, message, pushName })
      return { message: logged }
    },

    async 'apiToken.get'() {
      const token = core.account.token()
      return { token, fixed: token !== core.storage.config.data.account!.api_token }
    },
    async 'apiToken.regenerate'() {
      return { token: await core.account.regenerate() }
    },

    async 'appSettings.get'() {
      return { smtp: smtpView(core.storage.config.data.appSettings.smtp) }
    },
    async 'appSettings.setSmtp'({ smtp }) {
      await core.storage.config.update((d) => {
        if (!smtp) {
          d.appSettings.smtp = null
          return
        }
        const previous = d.appSettings.smtp
        const { pass, ...rest } = smtp
        const keep = pass === undefined ? previous?.pass : pass || undefined
        d.appSettings.smtp = { ...rest, ...(keep ? { pass: keep } : {}) }
      })
      return { smtp: smtpView(core.storage.config.data.appSettings.smtp) }
    }
  }
}

const validators = new Map(Object.entries(CONTRACT).map(([m, def]) => [m, strictAjv.compile(def.input)]))

/** The error shape of any thrown value; unexpected errors are logged and hidden. */
export function toErrorShape(err: unknown, log: (err: unknown) => void): ContractErrorShape {
  if (err instanceof AppError) return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
  log(err)
  return { code: 'INTERNAL', message: 'Internal error; see the app log.' }
}

/** True when `method` names a contract operation. */
export function isContractMethod(method: string): method is ContractMethod {
  return Object.prototype.hasOwnProperty.call(CONTRACT, method)
}

/**
 * Validates `input` against the method's schema and runs its handler. Never throws: answers the
 * result envelope (NOT_FOUND for an unknown method, VALIDATION_ERROR for a bad input).
 */
export async function dispatch(handlers: ContractHandlers, method: string, input: unknown, log: (err: unknown) => void): Promise<ContractResult<unknown>> {
  try {
    if (!isContractMethod(method)) throw new AppError('NOT_FOUND', `No operation ${method}`)
    const value = input === undefined || input === null ? {} : structuredClone(input)
    const validate = validators.get(method)!
    if (!validate(value)) throw validationError(ajvProblems(validate.errors ?? []))
    const handler = handlers[method] as (i: unknown) => Promise<unknown>
    return { ok: true, data: await handler(value) }
  } catch (err) {
    return { ok: false, error: toErrorShape(err, log) }
  }
}
