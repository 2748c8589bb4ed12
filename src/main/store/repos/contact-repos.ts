/**
 * Contacts and contact groups (docs/design.md §17). A contact's labels live in `contact_labels` (one row
 * per label, in the contact's order), so a label is renamed or filtered on without reading every
 * contact. Contacts are searched through their own trigram index (name, number, notes).
 */
import { produce, type Draft } from 'immer'
import { sql, type ExpressionBuilder, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely'
import type { Contact, ContactGroup } from '../../../shared/schemas/records'
import type { ContactGroupsTable, ContactsTable, Database } from '../db/schema'
import type { Exec } from './exec'
import { InstanceRecordTable, type Stored } from './record-table'
import { rowMap } from './row-map'
import { likeAnyCase, matchingContactSeqs } from '../db/search-sql'
import { searchText } from './search-terms'
import { timeToMs } from '../db/times'

export const contactGroupRows = rowMap<ContactGroup, ContactGroupsTable>({
  _id: 'as is',
  title: 'as is',
  is_default: 'flag',
  client_id: 'as is',
  instance_id: 'as is',
  createdAt: 'time',
  updatedAt: 'time',
  __v: 'as is'
})

type ContactRow = Omit<ContactsTable, 'seq'>

/** A contact ↔ its row, labels and username apart ({@link ContactRepo} reads and writes them). */
const contactRows = rowMap<Omit<Contact, 'labels' | 'username'>, ContactRow>({
  _id: 'as is',
  name: 'as is',
  number: 'as is',
  client_id: 'as is',
  instance_id: 'as is',
  group_id: 'as is',
  channel: 'as is',
  notes: 'as is',
  opted_out: 'flag',
  last_seen_at: 'time',
  createdAt: 'time',
  updatedAt: 'time',
  __v: 'as is'
})

/** A contact's row (its labels are rows of `contact_labels`). */
export function contactToRow(c: Contact): ContactRow {
  const { username: _shown, ...stored } = c
  return contactRows.toRow(stored)
}

function contactFromRow(w: ContactRow, labels: string[], username: string | undefined): Contact {
  return { ...contactRows.fromRow(w), labels, ...(username ? { username } : {}) }
}

export interface ContactFilter {
  /** The instances whose contacts are read (one, or several for `type=all`); absent: the whole account's. */
  instanceIds?: readonly string[]
  /** Only the contacts of this group. */
  groupId?: string
  /** Search: name, number or notes containing it (any case and accents; 3+ characters use the index), or the username of a LID contact's chat. */
  q?: string
  /** Only contacts with this label (any case). */
  label?: string
}

export class ContactGroupRepo extends InstanceRecordTable<ContactGroup, 'contact_groups'> {
  /** The groups of `instanceIds`, oldest first. */
  async ofInstances(instanceIds: readonly string[]): Promise<Stored<ContactGroup>[]> {
    if (instanceIds.length === 0) return []
    const rows = await this.x.db.selectFrom('contact_groups').selectAll().where('instance_id', 'in', instanceIds).orderBy('created_at').orderBy('id').execute()
    return rows.map((r) => this.toRecord(r))
  }
}

export class ContactRepo {
  constructor(private readonly x: Exec) {}

  async find(id: string): Promise<Stored<Contact> | undefined> {
    return (await this.load(this.x.db, (q) => q.where('id', '=', id)))[0]
  }

  /** The contact `id` if it belongs to `instanceId`. */
  async owned(instanceId: string, id: string): Promise<Stored<Contact> | undefined> {
    return (await this.load(this.x.db, (q) => q.where('id', '=', id).where('instance_id', '=', instanceId)))[0]
  }

  /** The contact with `number` (digits) of an instance. */
  async byNumber(instanceId: string, number: string): Promise<Stored<Contact> | undefined> {
    return (await this.load(this.x.db, (q) => q.where('instance_id', '=', instanceId).where('number', '=', number)))[0]
  }

  /** The contacts of an instance among `numbers`, by number. */
  async byNumbers(instanceId: string, numbers: readonly string[]): Promise<Map<string, Stored<Contact>>> {
    const out = new Map<string, Stored<Contact>>()
    // Bounded IN lists: SQLite's default limit is 32,766 variables; chunks keep statements reusable.
    for (let i = 0; i < numbers.length; i += 500) {
      const chunk = numbers.slice(i, i + 500)
      for (const c of await this.load(this.x.db, (q) => q.where('instance_id', '=', instanceId).where('number', 'in', chunk))) out.set(c.number, c)
    }
    return out
  }

  /** The contacts of a group, oldest first. */
  async inGroup(instanceId: string, groupId: string): Promise<Stored<Contact>[]> {
    return this.load(this.x.db, (q) => q.where('instance_id', '=', instanceId).where('group_id', '=', groupId).orderBy('created_at').orderBy('id'))
  }

  /** A page of the contacts `filter` picks, oldest first, and how many it picks in all. */
  async page(filter: ContactFilter, offset: number, limit: number): Promise<{ items: Stored<Contact>[]; total: number }> {
    const where = <O>(q: SelectQueryBuilder<Database, 'contacts', O>): SelectQueryBuilder<Database, 'contacts', O> => {
      let r = q
      const ids = filter.instanceIds
      if (ids !== undefined) r = ids.length === 1 ? r.where('instance_id', '=', ids[0]!) : ids.length === 0 ? r.where(sql<boolean>`1 = 0`) : r.where('instance_id', 'in', ids)
      if (filter.groupId !== undefined) r = r.where('group_id', '=', filter.groupId)
      if (filter.label) r = r.where('id', 'in', (eb) => eb.selectFrom('contact_labels').select('contact_id').where(sql<boolean>`lower(label) = lower(${filter.label})`))
      const text = filter.q === undefined ? '' : searchText(filter.q)
      const matching = text ? matchingContactSeqs(this.x.db, text) : null
      // A contact keyed by a LID is found by its chat's username too ("@lu" or "lu"): the contacts of
      // the chats whose username matches, found once as a set of seqs (the search index's answer is
      // one too, so the database reads both sets by rowid), never a subquery per contact (at 100,000
      // contacts that scanned the instance's conversations 100,000 times: 31 s for one page).
      const name = filter.q?.trim().replace(/^@/, '').toLowerCase() ?? ''
      const byUsername = (eb: ExpressionBuilder<Database, 'contacts'>) =>
        eb(
          'seq',
          'in',
          eb
            .selectFrom('conversations as cv')
            .innerJoin('contacts as named', (j) => j.onRef('named.instance_id', '=', 'cv.instance_id').onRef('named.number', '=', 'cv.chat_id'))
            .select('named.seq')
            .where('cv.username', 'is not', null)
            .where(likeAnyCase(this.x.db, 'cv.username', `%${name.replace(/[\\%_]/g, (c) => '\\' + c)}%`))
        )
      if (matching) r = r.where((eb) => (name ? eb.or([eb('seq', 'in', matching), byUsername(eb)]) : eb('seq', 'in', matching)))
      else if (text || name) {
        const like = `%${text.replace(/[\\%_]/g, (c) => '\\' + c)}%`
        r = r.where((eb) => eb.or([...(text ? [likeAnyCase(this.x.db, 'name', like), likeAnyCase(this.x.db, 'number', like), likeAnyCase(this.x.db, 'notes', like)] : []), ...(name ? [byUsername(eb)] : [])]))
      }
      return r
    }
    const { n } = await where(this.x.db.selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n'))).executeTakeFirstOrThrow()
    const items = await this.load(this.x.db, (q) => where(q).orderBy('created_at').orderBy('id').offset(offset).limit(limit))
    return { items, total: Number(n) }
  }

  /** Stores a contact (new, or replacing the one with its `_id`) with its labels. */
  async put(contact: Contact): Promise<Stored<Contact>> {
    await this.x.write((trx) => this.putIn(trx, contact))
    return Object.freeze(contact)
  }

  /** Stores several contacts in one transaction (an import). */
  async putMany(contacts: readonly Contact[]): Promise<void> {
    if (contacts.length === 0) return
    await this.x.write(async (trx) => {
      for (const c of contacts) await this.putIn(trx, c)
    })
  }

  /** Changes a contact through `recipe`; answers it, or undefined when there is none with that id. */
  async update(id: string, recipe: (draft: Draft<Contact>) => void): Promise<Stored<Contact> | undefined> {
    return this.x.write(async (trx) => {
      const [current] = await this.load(trx, (q) => q.where('id', '=', id))
      if (!current) return undefined
      const next = produce(current as Contact, recipe)
      if (next === current) return current
      await this.putIn(trx, next)
      return Object.freeze(next)
    })
  }

  async remove(id: string): Promise<boolean> {
    return this.x.write(async (trx) => {
      const res = await trx.deleteFrom('contacts').where('id', '=', id).executeTakeFirst()
      return Number(res.numDeletedRows) > 0
    })
  }

  /** Takes every contact out of group `groupId` (the group is being deleted). */
  async clearGroup(groupId: string, now: string): Promise<void> {
    await this.x.write((trx) => trx.updateTable('contacts').set({ group_id: null, updated_at: timeToMs(now) }).where('group_id', '=', groupId).execute())
  }

  private async putIn(db: Kysely<Database>, c: Contact): Promise<void> {
    const row = contactToRow(c)
    const { id: _id, ...rest } = row
    await db.insertInto('contacts').values(row).onConflict((oc) => oc.column('id').doUpdateSet(rest)).execute()
    await db.deleteFrom('contact_labels').where('contact_id', '=', c._id).execute()
    if (c.labels.length > 0) await db.insertInto('contact_labels').values(c.labels.map((label, position) => ({ contact_id: c._id, position, label }))).execute()
  }

  /** Contacts with their labels, in the order `shape` gives. */
  private async load(db: Kysely<Database>, shape: (q: SelectQueryBuilder<Database, 'contacts', Selectable<ContactsTable>>) => SelectQueryBuilder<Database, 'contacts', Selectable<ContactsTable>>): Promise<Stored<Contact>[]> {
    const rows = await shape(db.selectFrom('contacts').selectAll()).execute()
    if (rows.length === 0) return []
    const labels = new Map<string, string[]>()
    for (let i = 0; i < rows.length; i += 500) {
      const ids = rows.slice(i, i + 500).map((r) => r.id)
      const ls = await db.selectFrom('contact_labels').select(['contact_id', 'label']).where('contact_id', 'in', ids).orderBy('contact_id').orderBy('position').execute()
      for (const l of ls) {
        const list = labels.get(l.contact_id)
        if (list) list.push(l.label)
        else labels.set(l.contact_id, [l.label])
      }
    }
    // A contact keyed by a LID is shown by the username its chat carries (the latest WhatsApp told).
    const usernames = new Map<string, string>()
    const lids = rows.filter((r) => r.number.endsWith('@lid'))
    for (let i = 0; i < lids.length; i += 500) {
      const chunk = lids.slice(i, i + 500)
      const found = await db
        .selectFrom('conversations')
        .select(['instance_id', 'chat_id', 'username'])
        .where('chat_id', 'in', chunk.map((r) => r.number))
        .where('instance_id', 'in', [...new Set(chunk.map((r) => r.instance_id))])
        .where('username', 'is not', null)
        .execute()
      for (const c of found) usernames.set(`${c.instance_id} ${c.chat_id}`, c.username!)
    }
    return rows.map((r) => Object.freeze(contactFromRow(r, labels.get(r.id) ?? [], usernames.get(`${r.instance_id} ${r.number}`))))
  }
}
