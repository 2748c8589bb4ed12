/**
 * Runs the actions of a matched intent or answered survey step (docs/api-seed.md §2.5, docs/design.md §10) in the
 * design's order: location, contact vCard, photo, file, notification (WhatsApp message and e-mail),
 * add to group, start survey. Each action runs on its own: a failure is logged and reported in the
 * outcome list, and the next action still runs.
 */
import { kindOfMime } from '../media/media-inspect'
import { toGroupJid, toJid } from '../channel/jid'
import { buildVCard } from '../channel/vcard'
import type { Logger } from '../logger'
import type { AttachmentService } from '../services/attachment-service'
import type { MessageService } from '../services/messages/message-sender'
import type { Action, Instance } from '../../shared/schemas/records'
import type { Mailer } from './mailer'

export type ActionName = keyof Action

/** The order of docs/design.md §10. */
export const ACTION_ORDER: ActionName[] = [
  'send_location',
  'send_contact',
  'send_photo',
  'send_file',
  'send_notification',
  'add_to_group',
  'start_survey'
]

/** Who and what triggered the actions. */
export interface ActionContext {
  /** Where replies go (the chat). */
  chatId: string
  /** The contact's phone-number JID when known, else their chat JID. */
  contactJid: string
  pushName: string | null
  /** The message that triggered them. */
  text: string
  /** What matched, for notifications: `intent "Greeting"` or `survey "Order"`. */
  matched: string
  /** Every answer of a survey run that just completed, in step order (the notification lists them all). */
  answers?: Array<{ question: string; answer: string }>
}

export interface ActionOutcome {
  action: ActionName
  ok: boolean
  error?: string
}

export interface ActionRunnerDeps {
  messages: MessageService
  attachments: AttachmentService
  mailer: Mailer
  /** Starts a survey run at a step for the contact (asks its question). */
  startSurvey: (inst: Instance, ctx: ActionContext, stepId: string) => Promise<void>
  /** Puts the contact into the instance's contact group `groupId`; false when no such group (a WhatsApp group id then). */
  addToContactGroup: (inst: Instance, ctx: ActionContext, groupId: string) => Promise<boolean>
  logger: Logger
}

/** "Ann (+15550001111)" */
export function contactLabel(ctx: ActionContext): string {
  const number = `+${ctx.contactJid.split('@')[0]}`
  return ctx.pushName ? `${ctx.pushName} (${number})` : number
}

export class ActionRunner {
  constructor(private readonly deps: ActionRunnerDeps) {}

  /** Runs every member of `action`, in order; never throws. */
  async run(inst: Instance, action: Action | undefined, ctx: ActionContext): Promise<ActionOutcome[]> {
    const outcomes: ActionOutcome[] = []
    if (!action) return outcomes
    for (const name of ACTION_ORDER) {
      if (action[name] === undefined) continue
      try {
        await this.runOne(inst, name, action, ctx)
        outcomes.push({ action: name, ok: true })
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err)
        this.deps.logger.warn({ instanceId: inst._id, action: name, chatId: ctx.chatId, error }, 'bot action failed')
        outcomes.push({ action: name, ok: false, error })
      }
    }
    return outcomes
  }

  private async runOne(inst: Instance, name: ActionName, action: Action, ctx: ActionContext): Promise<void> {
    const send = this.deps.messages
    const bot = { source: 'bot' as const }
    switch (name) {
      case 'send_location': {
        const loc = action.send_location!
        await send.send(inst, ctx.chatId, { kind: 'location', latitude: Number(loc.lat), longitude: Number(loc.lng), name: loc.loc }, bot)
        return
      }
      case 'send_contact': {
        const c = action.send_contact!
        const vcard = buildVCard({ fullName: c.name, phoneNumber: c.number })
        await send.send(inst, ctx.chatId, { kind: 'contact', displayName: c.name, vcard }, bot)
        return
      }
      case 'send_photo':
      case 'send_file': {
        const a = await this.deps.attachments.get(inst, action[name]!)
        const media = await this.deps.attachments.source(a)
        if (name === 'send_photo') {
          if (kindOfMime(a.mimetype) !== 'image') throw new Error(`attachment ${a.filename} is ${a.mimetype}, not an image`)
          await send.send(inst, ctx.chatId, { kind: 'image', media }, bot)
        } else {
          await send.send(inst, ctx.chatId, { kind: 'document', media, fileName: a.filename }, bot)
        }
        return
      }
      case 'send_notification':
        await this.notify(inst, action.send_notification!, ctx)
        return
      case 'add_to_group': {
        if (await this.deps.addToContactGroup(inst, ctx, action.add_to_group!)) return
        const group = toGroupJid(action.add_to_group!)
        if (!group) throw new Error(`${action.add_to_group} is not a group id`)
        const session = send.connectedSession(inst)
        const results = await session.addToGroup(group, [ctx.contactJid])
        const failed = results.find((r) => r.status !== '200')
        if (failed) throw new Error(`could not add ${failed.jid} to ${group} (status ${failed.status})`)
        return
      }
      case 'start_survey':
        await this.deps.startSurvey(inst, ctx, action.start_survey!)
        return
    }
  }

  /** A WhatsApp message to chatapp_number and an e-mail; both are tried, either failing fails the action. */
  async notify(inst: Instance, target: NonNullable<Action['send_notification']>, ctx: ActionContext): Promise<void> {
    const who = contactLabel(ctx)
    const answers = ctx.answers?.length ? ctx.answers.map((a, i) => `${i + 1}. ${a.question} — ${a.answer}`).join('\n') : null
    const text = answers
      ? `🔔 ${inst.settings.bot_name}: ${who} completed ${ctx.matched}:\n${answers}`
      : `🔔 ${inst.settings.bot_name}: ${who} wrote "${ctx.text}" (matched ${ctx.matched}).`
    const errors: string[] = []
    if (target.chatapp_number) {
      const jid = toJid(target.chatapp_number)
      try {
        if (!jid) throw new Error(`${target.chatapp_number} is not a phone number`)
        await this.deps.messages.send(inst, jid, { kind: 'text', text }, { source: 'bot' })
      } catch (err) {
        errors.push(`WhatsApp to ${target.chatapp_number}: ${(err as Error).message}`)
      }
    }
    if (target.email) {
      try {
        await this.deps.mailer.send({
          to: target.email,
          subject: answers ? `${inst.settings.bot_name}: ${who} completed ${ctx.matched}` : `${inst.settings.bot_name}: ${who} matched ${ctx.matched}`,
          text: answers
            ? `${who} completed ${ctx.matched}:\n\n${answers}\n\nChat: ${ctx.chatId}\nInstance: ${inst._id}\n`
            : `${who} wrote:\n\n${ctx.text}\n\nMatched: ${ctx.matched}\nChat: ${ctx.chatId}\nInstance: ${inst._id}\n`
        })
      } catch (err) {
        errors.push(`e-mail to ${target.email}: ${(err as Error).message}`)
      }
    }
    if (errors.length) throw new Error(errors.join('; '))
  }
}
