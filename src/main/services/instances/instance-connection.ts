/**
 * An instance's connection (docs/design.md §5): starting its session, the pairing QR and code, its
 * health (state reason, WhatsApp's outreach limits), logging out.
 */
import { ChannelError, type ConnectionState, type SendLimits } from '../../channel/types'
import type { Stored } from '../../store/repos'
import type { Instance } from '../../../shared/schemas/records'
import type { InitBody } from '../../../shared/schemas/operations'
import { conflict, invalid } from '../../errors'
import type { InstanceRegistry } from './instance-registry'
import type { InstanceSettingsService } from './instance-settings'
import type { SessionManager } from './session-manager'

/** Why an instance is in its state, and WhatsApp's outreach limits on its number. */
export interface InstanceHealth {
  status: ConnectionState
  reason: string | null
  limits: SendLimits | null
}

export class InstanceConnection {
  constructor(
    private readonly registry: InstanceRegistry,
    private readonly settings: InstanceSettingsService,
    private readonly sessions: SessionManager
  ) {}

  /** Starts the session (idempotent) and applies init's config (docs/design.md §5); answers the state. */
  async init(inst: Stored<Instance>, config: InitBody['config']): Promise<ConnectionState> {
    if (config?.setWebhook && !config.webhookUrl && !inst.settings.webhook.url) {
      throw invalid('config.webhookUrl', 'is required when config.setWebhook is true')
    }
    if (config?.webhookUrl) await this.settings.checkWebhookUrl(config.webhookUrl, 'config.webhookUrl')
    await this.settings.change(inst._id, (s) => {
      if (config?.multiDevice !== undefined) s.actions.multi_device = config.multiDevice
      if (config?.setWebhook) {
        if (config.webhookUrl) s.webhook.url = config.webhookUrl
        s.actions.send_webhook = true
      }
    })
    await this.sessions.start(inst._id)
    return this.status(inst._id)
  }

  /** Stops the session and keeps its credentials (the owner's Stop; init starts it again); answers the state. */
  async stop(inst: Stored<Instance>): Promise<ConnectionState> {
    await this.sessions.stop(inst._id)
    return this.status(inst._id)
  }

  /** The current QR payload; 409 when connected, not started, or not showing a QR yet. */
  currentQr(inst: Stored<Instance>): { qr: string; status: ConnectionState } {
    const status = this.status(inst._id)
    if (status === 'CONNECTED') throw conflict('The instance is already connected; there is no QR code to scan.')
    const qr = this.sessions.latestQr(inst._id)
    if (!this.sessions.get(inst._id)) {
      throw conflict(`The instance is not started (status ${status}). Call POST /chatapp/init first.`)
    }
    if (!qr || status !== 'QR') {
      const reason = this.sessions.stateReason(inst._id)
      throw conflict(`No QR code yet (status ${status}${reason ? `: ${reason}` : ''}); try again in a moment.`)
    }
    return { qr, status }
  }

  /** Pairing by phone number; answers the code to type on the phone once WhatsApp registered it. */
  async pairingCode(inst: Stored<Instance>, phone: string): Promise<{ pairingCode: string; status: ConnectionState }> {
    const session = this.sessions.get(inst._id)
    if (!session) throw conflict('The instance is not started. Call POST /chatapp/init first.')
    try {
      const code = await session.requestPairingCode(phone.replace(/\D/g, ''))
      return { pairingCode: code, status: this.status(inst._id) }
    } catch (err) {
      if (err instanceof ChannelError) throw conflict(err.message)
      throw err
    }
  }

  health(instanceId: string): InstanceHealth {
    return { status: this.status(instanceId), reason: this.sessions.stateReason(instanceId) ?? null, limits: this.sessions.limits(instanceId) ?? null }
  }

  /** Unlinks the device and deletes its credentials; answers the state (LOGGED_OUT). */
  async logout(inst: Stored<Instance>): Promise<ConnectionState> {
    await this.sessions.logout(inst._id)
    return this.status(inst._id)
  }

  private status(instanceId: string): ConnectionState {
    return this.registry.get(instanceId).settings.status
  }
}
