/**
 * E-mail for the `send_notification` action (docs/design.md §10), through the SMTP server set in the
 * app's settings, with nodemailer. A transport is made per configuration and reused until the
 * settings change.
 */
import type { Transporter } from 'nodemailer'
import type { SmtpSettings } from '../store/repos'

export interface MailMessage {
  to: string
  subject: string
  text: string
}

/** Sends mail; throws when SMTP is not configured or the server refuses. */
export interface Mailer {
  send(message: MailMessage): Promise<void>
  close(): void
}

/** A mailer reading the current SMTP settings at each send. */
export function createSmtpMailer(getSettings: () => SmtpSettings | null): Mailer {
  let cached: { key: string; transport: Transporter } | null = null
  return {
    async send(message) {
      const smtp = getSettings()
      if (!smtp) throw new Error('SMTP is not configured in the app settings')
      const key = JSON.stringify(smtp)
      if (cached?.key !== key) {
        cached?.transport.close()
        cached = {
          key,
          // Loaded at the first e-mail, not at start (docs/benchmarks.md "Start time and idle memory").
          transport: (await import('nodemailer')).default.createTransport({
            host: smtp.host,
            port: smtp.port,
            secure: smtp.secure,
            auth: smtp.user ? { user: smtp.user, pass: smtp.pass ?? '' } : undefined,
            // A local relay often has a self-signed certificate; STARTTLS is still used when offered.
            tls: { rejectUnauthorized: false },
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 20_000
          })
        }
      }
      await cached.transport.sendMail({ from: smtp.from, to: message.to, subject: message.subject, text: message.text })
    },
    close() {
      cached?.transport.close()
      cached = null
    }
  }
}
