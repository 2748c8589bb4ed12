/**
 * Sandbox routes (DESIGN.md §6): simulate the phone scanning the QR, and deliver an inbound message
 * exactly as a real one arrives (message log, bot engine, webhooks). Only for sandbox instances.
 */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { Core } from '../../core'
import { SandboxSession } from '../../channel/sandbox-channel'
import { ChannelError } from '../../channel/types'
import { conflict, invalid } from '../../services/errors'
import type { Instance } from '../../../shared/schemas/records'
import { LoggedMessage } from '../../../shared/schemas/records'
import { CredentialsBody, CredentialsQuery, SandboxInboundBody } from '../../../shared/schemas/operations'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'

const tags = ['sandbox']

function sandboxSession(core: Core, inst: Instance): SandboxSession {
  if (inst.settings.channel !== 'sandbox') throw conflict('This instance runs on the real channel; the sandbox routes only drive sandbox instances.')
  const session = core.sessions.get(inst._id)
  if (!(session instanceof SandboxSession)) throw conflict(`The instance is not started (status ${inst.settings.status}). Call POST /chatapp/init first.`)
  return session
}

function attachmentOf(core: Core, inst: Instance, id: string) {
  try {
    return core.attachments.get(inst, id)
  } catch {
    throw invalid('attachmentId', 'names no attachment of this instance')
  }
}

async function channelCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof ChannelError) throw conflict(err.message)
    throw err
  }
}

export function sandboxRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()

  app.post(
    '/chatapp/sandbox/scan',
    {
      schema: {
        tags,
        summary: 'Simulate the phone scanning the QR code',
        querystring: CredentialsQuery,
        body: Type.Optional(CredentialsBody),
        response: responses(
          'Sandbox device linked successfully!',
          Type.Object({ status: Type.String(), bot_number: Type.String(), user: Type.Object({ id: Type.String(), name: Type.String() }) }),
          { 409: 'Not a sandbox instance, not started, or already linked' }
        )
      }
    },
    async (req) => {
      const inst = requestInstance(req)
      const session = sandboxSession(core, inst)
      const account = await channelCall(() => session.simulateScan())
      return ok('Sandbox device linked successfully!', { status: 'CONNECTED', bot_number: account.phone, user: { id: account.id, name: account.name } })
    }
  )

  app.post(
    '/chatapp/sandbox/inbound',
    {
      schema: {
        tags,
        summary: 'Deliver an inbound message to a sandbox instance',
        description: 'Answers once the message is logged and the bot has handled it, with the bot’s replies to that chat.',
        querystring: CredentialsQuery,
        body: SandboxInboundBody,
        response: responses('Message received successfully', Type.Object({ message: LoggedMessage, replies: Type.Array(LoggedMessage) }), {
          409: 'Not a sandbox instance or not connected'
        })
      }
    },
    async (req) => {
      const inst = requestInstance(req)
      const chatId = core.messages.resolveChat(req.body.chatId)
      if (req.body.participant !== undefined) core.messages.resolveChat(req.body.participant, 'participant')
      const attachment = req.body.attachmentId !== undefined ? attachmentOf(core, inst, req.body.attachmentId) : undefined
      const session = sandboxSession(core, inst)
      const replies: LoggedMessage[] = []
      const stop = core.events.on('message', (e) => {
        if (e.instanceId === inst._id && e.message.source === 'bot' && e.message.chatId === chatId) replies.push(e.message)
      })
      try {
        const media = attachment && { path: core.attachments.filePath(attachment._id), mimetype: attachment.mimetype, size: attachment.size, fileName: attachment.filename }
        const inbound = await channelCall(() => session.simulateInbound({ ...req.body, chatId, media }))
        const logged = (await core.storage.messages.find(inst._id, inbound.id)) ?? null
        return ok('Message received successfully', { message: logged, replies })
      } finally {
        stop()
      }
    }
  )
}
