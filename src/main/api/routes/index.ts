/** Registers every route of the seed interface and DESIGN.md's extensions. */
import type { FastifyInstance } from 'fastify'
import type { Core } from '../../core'
import { attachmentRoutes } from './attachments'
import { botRoutes } from './bot'
import { instanceRoutes } from './instances'
import { intentRoutes } from './intents'
import { messageRoutes } from './messages'
import { sandboxRoutes } from './sandbox'
import { settingsRoutes } from './settings'
import { surveyRoutes } from './surveys'
import { webhookRoutes } from './webhooks'

export async function registerRoutes(app: FastifyInstance, core: Core, version: string): Promise<void> {
  const started = Date.now()
  app.get('/health', { schema: { tags: ['health'], summary: 'Liveness (no token needed)', security: [] } }, async () => ({
    status: true,
    message: 'ok',
    data: { version, uptime_s: Math.floor((Date.now() - started) / 1000) }
  }))
  instanceRoutes(app, core)
  settingsRoutes(app, core)
  intentRoutes(app, core)
  surveyRoutes(app, core)
  attachmentRoutes(app, core)
  messageRoutes(app, core)
  sandboxRoutes(app, core)
  botRoutes(app, core)
  webhookRoutes(app, core)
}
