/** Operations of contacts: contacts (CSV import and export), labels, contact groups, the opt-out words. */
import Type from 'typebox'
import {
  Contact,
  ContactGroup,
  Label,
  OptOutSettings,
  type Contact as ContactT,
  type ContactGroup as ContactGroupT,
  type Label as LabelT,
  type OptOutSettings as OptOutSettingsT
} from '../../schemas/records'
import { DeleteResult, type DeleteResult as DeleteResultT } from '../../schemas/operations'
import { op } from '../define'
import { ImportReport, type ImportReportT } from '../results'
import { deleted, Empty, Id, Page, SETTINGS_UPDATED, type PagedT } from './common'

/** What a contact is made of, as the API takes it (docs/design.md §17). */
const ContactFields = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  number: Type.String({ minLength: 3, maxLength: 32, description: 'Phone number with country code; spaces, dashes and + are ignored.' }),
  group_id: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
  labels: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20 })),
  notes: Type.Optional(Type.String({ maxLength: 2000 })),
  opted_out: Type.Optional(Type.Boolean())
})

export const CONTACT_OPERATIONS = {
  /* ---------- contacts and contact groups (docs/design.md §17, the original service's shapes) ---------- */

  'contacts.create': op<ContactT>()({
    summary: 'Create a contact',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:write',
    input: ContactFields,
    output: Contact,
    http: { method: 'POST', path: '/contact', message: 'Contact created successfully!' },
    rpc: true
  }),
  'contacts.list': op<PagedT<ContactT>>()({
    summary: 'The contacts of this instance (`type=all`: of the account)',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:read',
    input: Type.Object({
      type: Type.Optional(Type.Literal('all')),
      q: Type.Optional(Type.String({ maxLength: 200, description: 'Search: name, number or notes containing it (any case and accents).' })),
      group_id: Type.Optional(Type.String({ minLength: 1, description: 'Only the contacts of this group.' })),
      label: Type.Optional(Type.String({ maxLength: 40, description: 'Only contacts with this label (any case).' })),
      ...Page.properties
    }),
    output: Type.Array(Contact),
    http: { method: 'GET', path: '/contact', query: ['type', 'q', 'group_id', 'label', 'offset', 'limit'], message: 'Contact fetched successfully!', respond: 'paged' },
    rpc: true
  }),
  'contacts.get': op<ContactT>()({
    summary: 'One contact',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:read',
    input: Type.Object({ id: Id }),
    output: Contact,
    http: { method: 'GET', path: '/contact/:contact_id', params: { contact_id: 'id' }, message: 'Contact fetched successfully!', errors: { 404: 'Unknown contact' } },
    rpc: true
  }),
  'contacts.update': op<ContactT>()({
    summary: 'Change a contact',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:write',
    input: Type.Object({ id: Id, ...Type.Partial(ContactFields).properties }),
    output: Contact,
    http: { method: 'PUT', path: '/contact/:contact_id', params: { contact_id: 'id' }, message: 'Contact updated successfully!', errors: { 404: 'Unknown contact' } },
    rpc: true
  }),
  'contacts.delete': op<void, DeleteResultT>()({
    summary: 'Delete a contact',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:write',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/contact/:contact_id', params: { contact_id: 'id' }, message: 'Contact deleted successfully!', wire: deleted, errors: { 404: 'Unknown contact' } },
    rpc: { output: deleted }
  }),
  'contacts.import': op<ImportReportT>()({
    summary: 'Import contacts from a CSV file (with a column mapping; refused rows say why)',
    description:
      'The first line names the columns; `,` or `;` separated. Columns are found by their usual names (name, number/phone/mobile, labels/tags, notes) unless `mapping` names them. Numbers already saved are left as they are (`existing`); each refused row comes back with its line number and the reason. `group_id` puts every imported contact in that group.',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:write',
    input: Type.Object({
      csv: Type.String({ minLength: 1, maxLength: 5_000_000, description: 'The file’s text (UTF-8).' }),
      mapping: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), number: Type.Optional(Type.String()), labels: Type.Optional(Type.String()), notes: Type.Optional(Type.String()) }, { additionalProperties: false })),
      group_id: Type.Optional(Type.Union([Id, Type.Null()]))
    }, { examples: [{ csv: 'name,phone\nAda,+39 333 1234567\nBo,+39 333 7654321', mapping: { number: 'phone' } }] }),
    output: ImportReport,
    http: { method: 'POST', path: '/contact/import', message: 'Contacts imported successfully!', bodyLimit: 'file' },
    rpc: true
  }),
  'contacts.export': op<{ fileName: string; csv: string }>()({
    summary: 'The contacts as a CSV file (`type=all`: of the account)',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:read',
    input: Type.Object({ type: Type.Optional(Type.Literal('all')) }),
    output: Type.Object({ fileName: Type.String(), csv: Type.String() }),
    http: { method: 'GET', path: '/contact/export', query: ['type'], message: 'Contacts exported successfully!', respond: 'csvWhenAsked' },
    rpc: true
  }),
  'labels.list': op<readonly LabelT[]>()({
    summary: 'The labels (name and colour) of contacts and conversations',
    tags: ['contacts'],
    scope: 'account',
    permission: 'contacts:read',
    reach: 'shared',
    input: Empty,
    output: Type.Array(Label),
    http: { method: 'GET', path: '/label', message: 'Labels fetched successfully!' },
    rpc: true
  }),
  'labels.create': op<LabelT>()({
    summary: 'Make a label',
    tags: ['contacts'],
    scope: 'account',
    permission: 'contacts:write',
    input: Type.Object({ name: Label.properties.name, color: Type.Optional(Label.properties.color) }),
    output: Label,
    http: { method: 'POST', path: '/label', message: 'Label created successfully!', errors: { 409: 'A label with that name exists' } },
    rpc: true
  }),
  'labels.update': op<LabelT>()({
    summary: 'Rename (on every contact too) or recolour a label',
    tags: ['contacts'],
    scope: 'account',
    permission: 'contacts:write',
    input: Type.Object({ id: Id, name: Type.Optional(Label.properties.name), color: Type.Optional(Label.properties.color) }),
    output: Label,
    http: { method: 'PUT', path: '/label/:label_id', params: { label_id: 'id' }, message: 'Label updated successfully!', errors: { 404: 'Unknown label', 409: 'A label with that name exists' } },
    rpc: true
  }),
  'labels.delete': op<void, DeleteResultT>()({
    summary: 'Delete a label (it comes off every contact)',
    tags: ['contacts'],
    scope: 'account',
    permission: 'contacts:write',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/label/:label_id', params: { label_id: 'id' }, message: 'Label deleted successfully!', wire: deleted, errors: { 404: 'Unknown label' } },
    rpc: { output: deleted }
  }),
  'contactGroups.create': op<ContactGroupT>()({
    summary: 'Create a contact group',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:write',
    input: Type.Object({ title: Type.String({ minLength: 1, maxLength: 100 }) }),
    output: ContactGroup,
    http: { method: 'POST', path: '/contact_groups', message: 'ContactGroup group created successfully!' },
    rpc: true
  }),
  'contactGroups.list': op<readonly ContactGroupT[]>()({
    summary: 'The contact groups of this instance (`type=all`: of the account)',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:read',
    input: Type.Object({ type: Type.Optional(Type.Literal('all')) }),
    output: Type.Array(ContactGroup),
    http: { method: 'GET', path: '/contact_groups', query: ['type'], message: 'ContactGroup group fetched successfully!' },
    rpc: true
  }),
  'contactGroups.get': op<ContactGroupT>()({
    summary: 'One contact group',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:read',
    input: Type.Object({ id: Id }),
    output: ContactGroup,
    http: { method: 'GET', path: '/contact_groups/:group_id', params: { group_id: 'id' }, message: 'ContactGroup group fetched successfully!', errors: { 404: 'Unknown contact group' } },
    rpc: true
  }),
  'contactGroups.update': op<ContactGroupT>()({
    summary: 'Rename a contact group',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:write',
    input: Type.Object({ id: Id, title: Type.String({ minLength: 1, maxLength: 100 }) }),
    output: ContactGroup,
    http: { method: 'PUT', path: '/contact_groups/:group_id', params: { group_id: 'id' }, message: 'ContactGroup group updated successfully!', errors: { 404: 'Unknown contact group' } },
    rpc: true
  }),
  'contactGroups.delete': op<void, DeleteResultT>()({
    summary: 'Delete a contact group (its contacts stay, in no group)',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'contacts:write',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/contact_groups/:group_id', params: { group_id: 'id' }, message: 'ContactGroup group deleted successfully!', wire: deleted, errors: { 404: 'Unknown contact group' } },
    rpc: { output: deleted }
  }),
  'settings.optOut': op<OptOutSettingsT>()({
    summary: 'The words a customer writes to opt out of (or back in to) broadcasts, and the replies',
    audit: 'Changed the opt-out words',
    description: 'The whole message must be one of the words (any case), in a 1:1 chat; it works at any hour and while the bot is paused. The contact is marked `opted_out`. Default STOP/UNSUBSCRIBE and START/SUBSCRIBE.',
    tags: ['contacts'],
    scope: 'instance',
    permission: 'settings:write',
    input: Type.Partial(OptOutSettings),
    output: OptOutSettings,
    http: { method: 'PUT', path: '/chatapp/optout', message: SETTINGS_UPDATED },
    rpc: true
  })
} as const
