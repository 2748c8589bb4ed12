/** Shared parts of the legacy import tests: fixture copies, what the 0.1 files hold, a database dump. */
import { cp, mkdtemp, readdir, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Kysely } from 'kysely'
import type { Database } from '../../../../src/main/store/db/schema'
import { readAuthDir, type LegacyAuthState } from '../../../../src/main/store/legacy/auth-reader'
import { readLegacyConfig, readLegacyRuntime, type LegacyConfigData, type LegacyRuntimeData } from '../../../../src/main/store/legacy/legacy-documents'
import { latestById, readMessageLog } from '../../../../src/main/store/legacy/message-log-reader'
import { readWebhookOutbox } from '../../../../src/main/store/legacy/outbox-reader'
import type { LoggedMessage } from '../../../../src/shared/schemas/records'
import type { WebhookDelivery } from '../../../../src/shared/schemas/webhooks'

export const FIXTURE = join(__dirname, '../../../fixtures/legacy-0.1.0')
export const VARIANTS = ['running', 'stopped'] as const

/** A copy of a fixture variant in a new temp dir. */
export async function copyFixture(variant: string, into?: string): Promise<string> {
  const dir = into ?? (await mkdtemp(join(tmpdir(), `chatapp-legacy-${variant}-`)))
  await cp(join(FIXTURE, variant), dir, { recursive: true })
  return dir
}

/** Everything a 0.1 data dir holds, as the readers replay it. */
export interface LegacyContents {
  config: LegacyConfigData
  runtime: LegacyRuntimeData
  /** Per instance: its log entries, one per id, in the file's order. */
  messages: Map<string, LoggedMessage[]>
  deliveries: WebhookDelivery[]
  auth: Map<string, LegacyAuthState>
}

export async function legacyContents(dir: string): Promise<LegacyContents> {
  const messages = new Map<string, LoggedMessage[]>()
  for (const f of (await readdir(join(dir, 'messages'))).filter((n) => n.endsWith('.jsonl') && !n.endsWith('.rejected.jsonl'))) {
    messages.set(f.slice(0, -6), latestById((await readMessageLog(join(dir, 'messages', f))).entries).entries)
  }
  const auth = new Map<string, LegacyAuthState>()
  for (const id of await readdir(join(dir, 'sessions'))) auth.set(id, await readAuthDir(join(dir, 'sessions', id)))
  return {
    config: (await readLegacyConfig(dir)).data,
    runtime: (await readLegacyRuntime(dir)).data,
    messages,
    deliveries: await readWebhookOutbox(join(dir, 'webhook-outbox.jsonl')),
    auth
  }
}

const TABLES: Array<keyof Database> = [
  'messages',
  'conversations',
  'chat_pauses',
  'intents',
  'survey_steps',
  'survey_runs',
  'attachments',
  'quick_replies',
  'labels',
  'contact_groups',
  'contacts',
  'contact_labels',
  'broadcasts',
  'broadcast_recipients',
  'outreach_sends',
  'schedules',
  'bot_activity',
  'bot_reply_marks',
  'webhook_deliveries',
  'auth_creds',
  'auth_keys',
  'wa_messages',
  'erasures',
  'legacy_import'
]

/**
 * Every row of every table, each table's rows sorted, times of the import itself left out
 * (`legacy_import.done_at`, `auth_creds.updated_at`): two imports of the same files dump the same.
 */
export async function dumpDatabase(db: Kysely<Database>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  for (const t of TABLES) {
    const rows = (await db.selectFrom(t).selectAll().execute()) as Array<Record<string, unknown>>
    out[t] = rows
      .map((r) => {
        const { done_at: _d, updated_at: _u, ...rest } = r
        const row = t === 'legacy_import' || t === 'auth_creds' ? rest : r
        return JSON.stringify(row, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v))
      })
      .sort()
  }
  return out
}

/** config.json as written (parsed). */
export async function configFile(dir: string): Promise<unknown> {
  return JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))
}
