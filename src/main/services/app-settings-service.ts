/**
 * App-wide settings: the SMTP server for the notification action's e-mails (docs/design.md §10).
 * The password is kept but never answered back: views say only whether one is stored.
 */
import type { AppSettingsRepo, SmtpSettings } from '../store/repos'
import type { SmtpInputT, SmtpViewT } from '../../shared/operations/results'

/** SMTP settings as the UI sees them, and its form (`pass` omitted keeps the stored password, '' removes it): the operation table's shapes. */
export type SmtpView = SmtpViewT
export type SmtpInput = SmtpInputT

export class AppSettingsService {
  constructor(private readonly settings: AppSettingsRepo) {}

  smtp(): SmtpView | null {
    const s = this.settings.smtp()
    if (!s) return null
    return { host: s.host, port: s.port, secure: s.secure, ...(s.user !== undefined ? { user: s.user } : {}), from: s.from, hasPassword: Boolean(s.pass) }
  }

  /** The stored settings, password included, for the mailer only. */
  smtpSecret(): Readonly<SmtpSettings> | null {
    return this.settings.smtp()
  }

  async setSmtp(smtp: SmtpInput | null): Promise<SmtpView | null> {
    if (!smtp) {
      await this.settings.setSmtp(null)
      return null
    }
    const { pass, ...rest } = smtp
    const keep = pass === undefined ? this.settings.smtp()?.pass : pass || undefined
    await this.settings.setSmtp({ ...rest, ...(keep ? { pass: keep } : {}) })
    return this.smtp()
  }
}
