/**
 * Contacts and contact groups (docs/design.md §17, the original service's `/contact` and `/contact_groups`):
 * created by hand or collected from conversations (the customer's number and push name), each in at
 * most one group. Records belong to an instance; `type=all` lists those of every instance the caller
 * may reach (the runner passes them).
 */
import type { Clock } from '../../clock'
import type { CoreEventBus, CoreEvents } from '../../events'
import { newObjectId } from '../../ids'
import type { ContactFilter, Repositories, Stored } from '../../store/repos'
import type { Contact, ContactGroup, InstanceRef } from '../../../shared/schemas/records'
import { conflict, invalid, notFound } from '../../errors'
import { contactKeyOf, contactNumber, unnamedContact } from './contact-number'
import type { LabelService } from './label-service'
import { contactsCsv, parseContactsCsv, type ColumnMapping, type ParsedImport } from './contact-csv'

/** What an import did: contacts made, numbers already known (left as they were), rows refused and why. */
export interface ImportReport {
  imported: number
  existing: number
  refused: ParsedImport['refused']
}

export interface ContactInput {
  name: string
  number: string
  group_id?: string | null
  labels?: string[]
  notes?: string
  opted_out?: boolean
}

/** `last_seen_at` moves at most this often (ms): a busy chat must not write its contact on every message. */
const SEEN_RESOLUTION_MS = 3_600_000

export class ContactService {
  /** Per instance and number: the last change in flight (see upsert). */
  private readonly locks = new Map<string, Promise<unknown>>()
  constructor(private readonly deps: { repos: Pick<Repositories, 'contacts' | 'contactGroups' | 'instances' | 'transaction'>; events: CoreEventBus; clock: Clock; labels?: Pick<LabelService, 'ensure'> }) {}

  /**
   * Collects customers from conversations: a new number becomes a contact named by its push name,
   * stored before the message is answered (a new customer's first message, then at most hourly).
   */
  start(): () => void {
    return this.deps.events.onDurable('message', (e) =>
      this.collect(e).catch(() => {
        // A contact that could not be saved is collected at the customer's next message.
      })
    )
  }

  /**
   * A page of the contacts of `instanceIds` (one instance's, or every one a `type=all` caller may
   * reach), oldest first, and how many `filter` picks in all: a group, a label, a search of name,
   * number and notes.
   */
  page(instanceIds: readonly string[], filter: Omit<ContactFilter, 'instanceIds'>, offset: number, limit: number): Promise<{ items: Stored<Contact>[]; total: number }> {
    return this.deps.repos.contacts.page({ ...filter, instanceIds }, offset, limit)
  }

  /** One contact of the instance; 404 when unknown. */
  async get(inst: InstanceRef, id: string): Promise<Stored<Contact>> {
    const c = await this.deps.repos.contacts.owned(inst._id, id)
    if (!c) throw notFound('Contact')
    return c
  }

  /** The contact with a number (digits) of an instance, if any. */
  byNumber(instanceId: string, number: string): Promise<Stored<Contact> | undefined> {
    return this.deps.repos.contacts.byNumber(instanceId, number)
  }

  /** Saves a new contact; `lastSeenAt` when it was collected from a message. 400 on a bad number or group. */
  async create(inst: InstanceRef, input: ContactInput): Promise<Stored<Contact>> {
    const number = contactNumber(input.number)
    await this.checkGroup(inst, input.group_id)
    return this.upsert(inst, number, (existing) => {
      if (existing) throw conflict(`+${number} is a contact already (${existing.name}); change that one instead.`)
      return this.insert(inst, { ...input, number })
    })
  }

  /**
   * Runs `fn` with the contact of `number` (or none) with no other change of that number in between:
   * a customer's first message, their STOP and a label must not make two contacts.
   */
  private upsert<T>(inst: InstanceRef, number: string, fn: (existing: Stored<Contact> | undefined) => Promise<T>): Promise<T> {
    const key = `${inst._id}:${number}`
    const run = (this.locks.get(key) ?? Promise.resolve()).then(async () => fn(await this.deps.repos.contacts.byNumber(inst._id, number)))
    const tail = run.then(
      () => undefined,
      () => undefined
    )
    this.locks.set(key, tail)
    void tail.then(() => this.locks.get(key) === tail && this.locks.delete(key))
    return run
  }

  /** Stores a new contact (number checked, no other with it). */
  private async insert(inst: InstanceRef, input: ContactInput, lastSeenAt: string | null = null): Promise<Stored<Contact>> {
    await this.deps.labels?.ensure(input.labels ?? [])
    const c = await this.deps.repos.contacts.put(this.record(inst, input, lastSeenAt, this.now()))
    this.changed(inst)
    return c
  }

  /** A new contact record (number already checked). */
  private record(inst: InstanceRef, input: ContactInput, lastSeenAt: string | null, now: string): Contact {
    return {
      _id: newObjectId(),
      name: input.name.trim(),
      number: input.number,
      client_id: inst.user_id,
      instance_id: inst._id,
      group_id: input.group_id ?? null,
      channel: 'whatsapp',
      labels: input.labels ?? [],
      notes: input.notes ?? '',
      opted_out: input.opted_out ?? false,
      last_seen_at: lastSeenAt,
      createdAt: now,
      updatedAt: now,
      __v: 0
    }
  }

  async update(inst: InstanceRef, id: string, change: Partial<ContactInput>): Promise<Stored<Contact>> {
    await this.get(inst, id)
    const number = change.number === undefined ? undefined : contactNumber(change.number)
    await this.checkGroup(inst, change.group_id)
    await this.deps.labels?.ensure(change.labels ?? [])
    const now = this.now()
    const updated = (await this.deps.repos.contacts.update(id, (c) => {
      if (change.name !== undefined) c.name = change.name.trim()
      if (number !== undefined) c.number = number
      if (change.group_id !== undefined) c.group_id = change.group_id
      if (change.labels !== undefined) c.labels = change.labels
      if (change.notes !== undefined) c.notes = change.notes
      if (change.opted_out !== undefined) c.opted_out = change.opted_out
      c.updatedAt = now
      c.__v += 1
    }))!
    this.changed(inst)
    return updated
  }

  /**
   * The labels of a conversation's customer `number` (their contact's; a contact is made if needed).
   * `number` is a contact key ({@link contactKeyOf}): digits, or a LID for a customer known by username.
   */
  async setLabels(inst: InstanceRef, number: string, name: string | null, labels: string[]): Promise<Stored<Contact>> {
    return this.upsert(inst, number, (existing) => (existing ? this.update(inst, existing._id, { labels }) : this.insert(inst, { name: name ?? unnamedContact(number), number, labels })))
  }

  async delete(inst: InstanceRef, id: string): Promise<void> {
    await this.get(inst, id)
    await this.deps.repos.contacts.remove(id)
    this.changed(inst)
  }

  private changed(inst: InstanceRef): void {
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'contacts' })
  }

  /** The contact groups of `instanceIds` (one instance's, or every one a `type=all` caller may reach), oldest first. */
  groups(instanceIds: readonly string[]): Promise<Stored<ContactGroup>[]> {
    return instanceIds.length === 1 ? this.deps.repos.contactGroups.ofInstance(instanceIds[0]!) : this.deps.repos.contactGroups.ofInstances(instanceIds)
  }

  /** One contact group of the instance; 404 when unknown. */
  async group(inst: InstanceRef, id: string): Promise<Stored<ContactGroup>> {
    const g = await this.deps.repos.contactGroups.owned(inst._id, id)
    if (!g) throw notFound('ContactGroup')
    return g
  }

  async createGroup(inst: InstanceRef, title: string): Promise<Stored<ContactGroup>> {
    const now = this.now()
    const g = await this.deps.repos.contactGroups.put({ _id: newObjectId(), title: title.trim(), is_default: false, client_id: inst.user_id, instance_id: inst._id, createdAt: now, updatedAt: now, __v: 0 })
    this.changed(inst)
    return g
  }

  async renameGroup(inst: InstanceRef, id: string, title: string): Promise<Stored<ContactGroup>> {
    await this.group(inst, id)
    const now = this.now()
    const g = (await this.deps.repos.contactGroups.update(id, (g) => {
      g.title = title.trim()
      g.updatedAt = now
      g.__v += 1
    }))!
    this.changed(inst)
    return g
  }

  /** Deletes a group; its contacts stay, in no group. */
  async deleteGroup(inst: InstanceRef, id: string): Promise<void> {
    await this.group(inst, id)
    const now = this.now()
    await this.deps.repos.transaction(async (r) => {
      await r.contacts.clearGroup(id, now)
      await r.contactGroups.remove(id)
    })
    this.changed(inst)
  }

  /** Puts the customer `number` (a contact key, see {@link setLabels}) of a conversation into the group (a contact is made if needed). */
  async addToGroup(inst: InstanceRef, number: string, name: string | null, groupId: string): Promise<Stored<Contact>> {
    await this.group(inst, groupId)
    return this.upsert(inst, number, (existing) => (existing ? this.update(inst, existing._id, { group_id: groupId }) : this.insert(inst, { name: name ?? unnamedContact(number), number, group_id: groupId })))
  }

  /** Marks the customer `number` (a contact key, see {@link setLabels}) opted out (or in again); a contact is made if needed. */
  async setOptedOut(inst: InstanceRef, number: string, name: string | null, optedOut: boolean): Promise<Stored<Contact>> {
    return this.upsert(inst, number, async (existing) => {
      if (existing) return existing.opted_out === optedOut ? existing : this.update(inst, existing._id, { opted_out: optedOut })
      return this.insert(inst, { name: name ?? unnamedContact(number), number, opted_out: optedOut })
    })
  }

  /**
   * Imports contacts from CSV (contact-csv.ts) in one write, into `groupId` when given. Numbers that
   * are already contacts are left as they are (counted in `existing`); refused rows say why.
   */
  async importCsv(inst: InstanceRef, csv: string, mapping: ColumnMapping = {}, groupId?: string | null): Promise<ImportReport> {
    await this.checkGroup(inst, groupId)
    const { rows, refused } = parseContactsCsv(csv, mapping)
    const known = await this.deps.repos.contacts.byNumbers(inst._id, rows.map((r) => r.number))
    const fresh = rows.filter((r) => !known.has(r.number))
    await this.deps.labels?.ensure(fresh.flatMap((r) => r.labels))
    const now = this.now()
    await this.deps.repos.contacts.putMany(
      fresh.map((r) => ({ ...this.record(inst, { name: r.name, number: r.number, labels: r.labels, notes: r.notes, group_id: groupId ?? null }, null, now) }))
    )
    if (fresh.length > 0) this.changed(inst)
    return { imported: fresh.length, existing: rows.length - fresh.length, refused }
  }

  /** The contacts of `instanceIds` (see {@link page}) as a CSV file. */
  async exportCsv(instanceIds: readonly string[]): Promise<{ fileName: string; csv: string }> {
    const titles = new Map((await this.deps.repos.contactGroups.ofInstances(instanceIds)).map((g) => [g._id, g.title]))
    const { items } = await this.page(instanceIds, {}, 0, Number.MAX_SAFE_INTEGER)
    return { fileName: 'contacts.csv', csv: contactsCsv(items, (id) => titles.get(id)) }
  }

  /**
   * A customer's 1:1 message makes or touches their contact: keyed by their number, or by the LID
   * when WhatsApp gives none (a username that hides the number, docs/baileys.md "Usernames").
   */
  private async collect({ instanceId, message }: CoreEvents['message']): Promise<void> {
    if (message.source !== 'inbound') return
    const chat = contactKeyOf(message.chatId)
    const number = chat?.endsWith('@lid') && message.senderPn ? contactKeyOf(message.senderPn) : chat
    if (!number) return
    const seen = new Date(message.timestamp).toISOString()
    const inst = this.deps.repos.instances.find(instanceId)
    if (!inst) return
    await this.upsert(inst, number, async (existing) => {
      if (!existing) return void (await this.insert(inst, { name: message.pushName?.trim() || unnamedContact(number, message.username), number }, seen))
      if (existing.last_seen_at && Date.parse(seen) - Date.parse(existing.last_seen_at) < SEEN_RESOLUTION_MS) return
      await this.deps.repos.contacts.update(existing._id, (c) => {
        c.last_seen_at = seen
      })
    })
  }

  private async checkGroup(inst: InstanceRef, groupId: string | null | undefined): Promise<void> {
    if (groupId && !(await this.deps.repos.contactGroups.owned(inst._id, groupId))) throw invalid('group_id', 'names no contact group of this instance')
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString()
  }
}
