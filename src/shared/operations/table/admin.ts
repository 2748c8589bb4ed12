/** Operations of the app itself (the UI's): version, the API token, app settings, the web UI's login. */
import Type from 'typebox'
import { op } from '../define'
import { AppInfo, SmtpInput, SmtpView, type AppInfoT, type SmtpViewT } from '../results'
import { Empty } from './common'

export const ADMIN_OPERATIONS = {
  /* ---------- the app (UI only) ---------- */

  'app.info': op<AppInfoT>()({ summary: 'Version, API base URL and mode of the app', tags: ['app'], scope: 'account', permission: 'signed-in', reach: 'shared', input: Empty, output: AppInfo, rpc: true }),
  'apiToken.get': op<{ token: string; fixed: boolean }>()({
    summary: 'The API bearer token (and whether the environment fixes it)',
    tags: ['app'],
    scope: 'account',
    permission: 'admin',
    input: Empty,
    output: Type.Object({ token: Type.String(), fixed: Type.Boolean() }),
    rpc: true
  }),
  'apiToken.regenerate': op<{ token: string }>()({ summary: 'A new API bearer token', audit: 'Made a new API token', tags: ['app'], scope: 'account', permission: 'admin', input: Empty, output: Type.Object({ token: Type.String() }), rpc: true }),
  'appSettings.get': op<{ smtp: SmtpViewT | null }>()({
    summary: 'App settings (the SMTP server; the password is never answered)',
    tags: ['app'],
    scope: 'account',
    permission: 'admin',
    input: Empty,
    output: Type.Object({ smtp: Type.Union([SmtpView, Type.Null()]) }),
    rpc: true
  }),
  'appSettings.setSmtp': op<{ smtp: SmtpViewT | null }>()({
    summary: 'Set (or clear) the SMTP server of notification e-mails',
    audit: 'Changed the mail (SMTP) settings',
    tags: ['app'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ smtp: Type.Union([SmtpInput, Type.Null()]) }),
    output: Type.Object({ smtp: Type.Union([SmtpView, Type.Null()]) }),
    rpc: true
  }),

  'auth.login': op<{ token: string }>()({
    summary: 'Exchange a one-time login code for the API token',
    description:
      'The headless server prints a login link with a code at each start; the web UI trades it here once. Failed attempts count toward the per-address throttle (429).',
    tags: ['app'],
    scope: 'public',
    permission: 'public',
    input: Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) }),
    output: Type.Object({ token: Type.String() }),
    http: { method: 'POST', path: '/auth/login', message: 'Logged in', errors: { 401: 'Unknown, used or expired code', 429: 'Too many failed attempts from this address' } }
  })
} as const
