/**
 * What the data layer does across tables for one instance or one customer, each in one transaction:
 * delete an instance's data, export and erase a customer's (issue 25 §2), and apply a retention
 * period. Nothing here decides who may do it or when: the services do.
 */
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Contact, LoggedMessage, SurveyRun } from '../../../shared/schemas/records'
import type { AssistantReply } from '../../../shared/schemas/assistant'
import { assistantReplyOf } from './assistant-repo'
import type { Database } from '../db/schema'
import { toJson, type Exec } from './exec'
import { countUnread, rebuildConversation } from './conversation-index'
import { messageFromRow } from './message-rows'
import { surveyRunRows } from './survey-run-repo'
import type { ContactRepo } from './contact-repos'

/** A customer's data as it is stored: their contact, messages, survey runs and the assistant's answers to them. */
export interface CustomerData {
  contact: Contact | null
  /** Every message of their chats and their messages in groups, oldest first. */
  messages: LoggedMessage[]
  surveyRuns: SurveyRun[]
  /** The assistant's answers in their chats (model, tokens, sources), oldest first. */
  assistantReplies: AssistantReply[]
}

/** How many records of each kind an erasure deleted. */
export interface ErasureCounts {
  messages: number
  conversations: number
  survey_runs: number
  contacts: number
  webhook_deliveries: number
  broadcast_recipients: number
  assistant_replies: number
}

/** The sha256 a number is remembered by after its erasure. */
export function subjectHash(number: string): string {
  return createHash('sha256').update(`chatapp-erasure:${number}`).digest('hex')
}

/** The chats and sender ids of customer `number` (digits): the number's JID and the LIDs it was linked to. */
async function customerJids(db: Kysely<Database>, instanceId: string, number: string): Promise<{ chats: string[]; senders: string[] }> {
  const pn = `${number}@s.whatsapp.net`
  const lids = await db.selectFrom('messages').select('sender_lid').distinct().where('instance_id', '=', instanceId).where('sender_pn', '=', pn).where('sender_lid', 'is not', null).execute()
  const senders = [pn, ...lids.map((l) => l.sender_lid!).filter((l) => l !== pn)]
  const lidChats = await db.selectFrom('conversations').select('chat_id').where('instance_id', '=', instanceId).where('chat_id', 'in', senders).execute()
  return { chats: [...new Set([pn, ...lidChats.map((c) => c.chat_id)])], senders }
}

export class CustomerDataRepo {
  constructor(
    private readonly x: Exec,
    private readonly contacts: Pick<ContactRepo, 'byNumber'>
  ) {}

  /** Everything stored of customer `number` (digits) by an instance. */
  async exportCustomer(instanceId: string, number: string): Promise<CustomerData> {
    const db = this.x.db
    const { chats, senders } = await customerJids(db, instanceId, number)
    const messages = await db
      .selectFrom('messages')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where((eb) => eb.or([eb('chat_id', 'in', chats), eb('sender_pn', 'in', senders), eb('sender_id', 'in', senders)]))
      .orderBy('timestamp')
      .orderBy('seq')
      .execute()
    const runs = await db
      .selectFrom('survey_runs')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where((eb) => eb.or([eb('chat_id', 'in', chats), eb('contact_id', 'in', senders)]))
      .orderBy('started_at')
      .execute()
    const replies = await db.selectFrom('assistant_replies').selectAll().where('instance_id', '=', instanceId).where('chat_id', 'in', chats).orderBy('seq').execute()
    const contact = await this.contacts.byNumber(instanceId, number)
    return {
      contact: contact ? { ...contact, labels: [...contact.labels] } : null,
      messages: messages.map(messageFromRow),
      surveyRuns: runs.map(surveyRunRows.fromRow),
      assistantReplies: replies.map(assistantReplyOf)
    }
  }

  /**
   * Deletes everything stored of customer `number` by an instance, in one transaction, and records
   * the erasure (who, when, how many; the number only as a hash). Answers the counts and the ids of
   * the deleted messages (their cached media files go too).
   */
  async eraseCustomer(instanceId: string, number: string, by: string, at: string, erasureId: string): Promise<{ counts: ErasureCounts; messageIds: string[] }> {
    return this.x.write(async (trx) => {
      const { chats, senders } = await customerJids(trx, instanceId, number)
      const inChatsOrBySender = trx
        .selectFrom('messages')
        .select(['seq', 'id', 'chat_id'])
        .where('instance_id', '=', instanceId)
        .where((eb) => eb.or([eb('chat_id', 'in', chats), eb('sender_pn', 'in', senders), eb('sender_id', 'in', senders)]))
      const doomed = await inChatsOrBySender.execute()
      const groupChats = [...new Set(doomed.map((m) => m.chat_id).filter((c) => !chats.includes(c)))]
      for (let i = 0; i < doomed.length; i += 500) {
        await trx.deleteFrom('messages').where('seq', 'in', doomed.slice(i, i + 500).map((m) => m.seq)).execute()
      }
      const conv = await trx.deleteFrom('conversations').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).executeTakeFirst()
      // Group chats keep their other members' messages: their rows are counted again.
      for (const chat of groupChats) await rebuildConversation(trx, instanceId, chat)
      const runs = await trx
        .deleteFrom('survey_runs')
        .where('instance_id', '=', instanceId)
        .where((eb) => eb.or([eb('chat_id', 'in', chats), eb('contact_id', 'in', senders)]))
        .executeTakeFirst()
      const contact = await trx.deleteFrom('contacts').where('instance_id', '=', instanceId).where('number', '=', number).executeTakeFirst()
      await trx.deleteFrom('chat_pauses').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).execute()
      await trx.deleteFrom('conversation_events').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).execute()
      await trx.deleteFrom('bot_reply_marks').where('instance_id', '=', instanceId).where('chat_id', 'in', [...chats, ...senders]).execute()
      // The assistant's answers hold the customer's questions; the bot's activity names their chats.
      const replies = await trx.deleteFrom('assistant_replies').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).executeTakeFirst()
      await trx.deleteFrom('bot_activity').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).execute()
      await trx.deleteFrom('outreach_sends').where('instance_id', '=', instanceId).where('to', 'in', [number, ...chats]).execute()
      for (let i = 0; i < doomed.length; i += 500) {
        await trx.deleteFrom('wa_messages').where('instance_id', '=', instanceId).where('id', 'in', doomed.slice(i, i + 500).map((m) => m.id)).execute()
      }
      const recipients = await trx
        .deleteFrom('broadcast_recipients')
        .where('number', 'in', [number, ...chats])
        .where('broadcast_id', 'in', (eb) => eb.selectFrom('broadcasts').select('id').where('instance_id', '=', instanceId))
        .executeTakeFirst()
      let deliveries = 0
      for (const jid of senders) {
        const res = await trx.deleteFrom('webhook_deliveries').where('instance_id', '=', instanceId).where('payload', 'like', `%${jid}%`).executeTakeFirst()
        deliveries += Number(res.numDeletedRows)
      }
      const counts: ErasureCounts = {
        messages: doomed.length,
        conversations: Number(conv.numDeletedRows),
        survey_runs: Number(runs.numDeletedRows),
        contacts: Number(contact.numDeletedRows),
        webhook_deliveries: deliveries,
        broadcast_recipients: Number(recipients.numDeletedRows),
        assistant_replies: Number(replies.numDeletedRows)
      }
      await trx.insertInto('erasures').values({ id: erasureId, instance_id: instanceId, subject_hash: subjectHash(number), by, at, counts: toJson(counts) }).execute()
      return { counts, messageIds: doomed.map((m) => m.id) }
    })
  }

  /** Whether customer `number` was erased from an instance, and when. */
  async erasedAt(instanceId: string, number: string): Promise<string | null> {
    const row = await this.x.db.selectFrom('erasures').select('at').where('instance_id', '=', instanceId).where('subject_hash', '=', subjectHash(number)).orderBy('at', 'desc').limit(1).executeTakeFirst()
    return row?.at ?? null
  }

  /**
   * Deletes an instance's messages older than `beforeMs` (epoch ms), at most `batch` at a time (call
   * again while it answers `batch`): the conversations follow. Answers the deleted entries' ids.
   */
  async deleteMessagesBefore(instanceId: string, beforeMs: number, batch = 5000): Promise<string[]> {
    return this.x.write(async (trx) => {
      const doomed = await trx.selectFrom('messages').select(['seq', 'id', 'chat_id']).where('instance_id', '=', instanceId).where('timestamp', '<', beforeMs).orderBy('timestamp').orderBy('seq').limit(batch).execute()
      // The timeline's desk events go by the same rule as the messages.
      await trx.deleteFrom('conversation_events').where('instance_id', '=', instanceId).where('at', '<', beforeMs).execute()
      if (doomed.length === 0) return []
      for (let i = 0; i < doomed.length; i += 500) await trx.deleteFrom('messages').where('seq', 'in', doomed.slice(i, i + 500).map((m) => m.seq)).execute()
      const perChat = new Map<string, number>()
      for (const m of doomed) perChat.set(m.chat_id, (perChat.get(m.chat_id) ?? 0) + 1)
      for (const [chat, n] of perChat) {
        const c = await trx.selectFrom('conversations').select(['message_count', 'unread', 'read_until', 'last_person_at']).where('instance_id', '=', instanceId).where('chat_id', '=', chat).executeTakeFirst()
        if (!c) continue
        if (c.message_count <= n) {
          await trx.deleteFrom('conversations').where('instance_id', '=', instanceId).where('chat_id', '=', chat).execute()
          continue
        }
        const unread = c.unread > 0 ? await countUnread(trx, instanceId, chat, Math.max(c.read_until, c.last_person_at)) : 0
        await trx.updateTable('conversations').set({ message_count: c.message_count - n, unread }).where('instance_id', '=', instanceId).where('chat_id', '=', chat).execute()
      }
      return doomed.map((m) => m.id)
    })
  }

  /**
   * An instance's messages with media older than `beforeMs` (epoch ms), `limit` at a time in
   * insertion order after `afterSeq` (pass the last `seq` of a page to get the next).
   */
  async mediaBefore(instanceId: string, beforeMs: number, afterSeq = 0, limit = 5000): Promise<Array<{ seq: number; id: string }>> {
    return this.x.db
      .selectFrom('messages')
      .select(['seq', 'id'])
      .where('instance_id', '=', instanceId)
      .where('seq', '>', afterSeq)
      .where('timestamp', '<', beforeMs)
      .where('details', 'like', '%"media"%')
      .orderBy('seq')
      .limit(limit)
      .execute()
  }

  /** Deletes everything an instance owns in the database, in one transaction; answers its attachments' ids (their files go too). */
  async removeInstance(instanceId: string): Promise<string[]> {
    return this.x.write(async (trx) => {
      const attachments = await trx.selectFrom('attachments').select('id').where('instance_id', '=', instanceId).execute()
      const broadcasts = trx.selectFrom('broadcasts').select('id').where('instance_id', '=', instanceId)
      await trx.deleteFrom('broadcast_recipients').where('broadcast_id', 'in', broadcasts).execute()
      const contacts = trx.selectFrom('contacts').select('id').where('instance_id', '=', instanceId)
      await trx.deleteFrom('contact_labels').where('contact_id', 'in', contacts).execute()
      for (const table of ['messages', 'conversations', 'chat_pauses', 'intents', 'survey_steps', 'survey_runs', 'attachments', 'contact_groups', 'contacts', 'broadcasts', 'outreach_sends', 'schedules', 'bot_activity', 'bot_reply_marks', 'webhook_deliveries', 'auth_creds', 'auth_keys', 'wa_messages', 'conversation_events', 'knowledge_chunks', 'knowledge', 'knowledge_revisions', 'assistant_settings', 'assistant_replies', 'assistant_usage'] as const) {
        await trx.deleteFrom(table).where('instance_id', '=', instanceId).execute()
      }
      return attachments.map((a) => a.id)
    })
  }
}
