/**
 * Contacts and contact groups (issue 14 §1–2): the customers the bot met and those the owner added or
 * imported, filtered by group and searched; import from CSV (ImportModal), export, edit, opt out.
 */
import { ActionIcon, Badge, Button, Card, EmptyState, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import { useMemo, useState } from 'react'
import type { Contact } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { saveCsv } from '../../components/files'
import { NeedInstance } from '../../components/NeedInstance'
import { useAction, useContract } from '../../hooks'
import { call, useSelectedInstance } from '../../store'
import { ContactEditor } from './ContactEditor'
import { GroupBar } from './GroupBar'
import { ImportModal, ImportPicker } from './ImportModal'
import { LabelBadges } from '../../components/LabelBadges'
import { LabelManager } from './LabelManager'

/** The contacts a filter shows: a group (or all) and a search over name, number and labels. */
export function filterContacts(contacts: readonly Contact[], groupId: string | null, query: string): Contact[] {
  const q = query.trim().toLowerCase()
  const digits = q.replace(/\D/g, '')
  return contacts.filter(
    (c) =>
      (groupId === null || c.group_id === groupId) &&
      (!q || c.name.toLowerCase().includes(q) || (digits.length > 0 && c.number.includes(digits)) || c.labels.some((l) => l.toLowerCase().includes(q)))
  )
}

export function ContactsTab() {
  const inst = useSelectedInstance()
  const instanceId = inst?._id
  const changed = (e: { type: string; instanceId?: string; what?: string }) => e.type === 'changed' && e.instanceId === instanceId && e.what === 'contacts'
  const contacts = useContract('contacts.list', instanceId ? { instanceId } : null, changed)
  const groups = useContract('contactGroups.list', instanceId ? { instanceId } : null, changed)
  const [groupId, setGroupId] = useState<string | null>(null)
  const [query, setQuery] = useState('')
  const [editing, setEditing] = useState<Contact | 'new' | null>(null)
  const [importing, setImporting] = useState<File | null>(null)
  const exporting = useAction()
  const shown = useMemo(() => filterContacts(contacts.data ?? [], groupId, query), [contacts.data, groupId, query])
  if (!instanceId) return <NeedInstance />
  const reload = async () => void (await Promise.all([contacts.reload(), groups.reload()]))
  const groupTitle = (id: string | null) => groups.data?.find((g) => g._id === id)?.title
  return (
    <Stack>
      <Card withBorder>
        <Group justify="space-between" mb="sm">
          <Title order={4}>Contacts</Title>
          <Group gap="xs">
            <Button size="xs" onClick={() => setEditing('new')}>
              Add contact
            </Button>
            <ImportPicker onFile={setImporting} />
            <LabelManager />
            <Button size="xs" variant="default" loading={exporting.busy} disabled={!contacts.data?.length} onClick={() => void exporting.run(async () => {
              const { fileName, csv } = await call('contacts.export', { instanceId })
              saveCsv(fileName, csv)
            })}>
              Export CSV
            </Button>
          </Group>
        </Group>
        <GroupBar instanceId={instanceId} groups={groups.data ?? []} contacts={contacts.data ?? []} value={groupId} onChange={setGroupId} onChanged={reload} />
        <TextInput mt="sm" placeholder="Search by name, number or label" value={query} onChange={(e) => setQuery(e.currentTarget.value)} aria-label="Search contacts" />
        <ErrorAlert error={contacts.error ?? groups.error ?? exporting.error} />
      </Card>
      {contacts.data?.length === 0 ? (
        <EmptyState title="No contacts yet" description="Customers who write to this number appear here by themselves. Add one by hand or import a CSV from your phone book or shop system." />
      ) : (
        <ContactList contacts={shown} total={contacts.data?.length ?? 0} groupTitle={groupTitle} onEdit={setEditing} />
      )}
      {editing && <ContactEditor instanceId={instanceId} contact={editing === 'new' ? null : editing} groups={groups.data ?? []} defaultGroup={groupId} onClose={() => setEditing(null)} onSaved={reload} />}
      {importing && <ImportModal instanceId={instanceId} file={importing} groups={groups.data ?? []} defaultGroup={groupId} onClose={() => setImporting(null)} onDone={reload} />}
    </Stack>
  )
}

/** Rows shown at first and added by "Show more": thousands at once would slow the page. */
const PAGE = 50

function ContactList({ contacts, total, groupTitle, onEdit }: { contacts: Contact[]; total: number; groupTitle(id: string | null): string | undefined; onEdit(c: Contact): void }) {
  const phone = useMediaQuery('(max-width: 48em)')
  const [shownCount, setShownCount] = useState(PAGE)
  const rows = contacts.slice(0, shownCount)
  const more = contacts.length - rows.length
  const footer = (
    <Group justify="space-between" mt="xs">
      <Text size="xs" c="dimmed">
        {contacts.length === total ? `${total} contacts` : `${contacts.length} of ${total} contacts`}
        {more > 0 ? ` · showing ${rows.length}` : ''}
      </Text>
      {more > 0 && (
        <Button size="compact-xs" variant="subtle" onClick={() => setShownCount(shownCount + PAGE)}>
          Show {Math.min(PAGE, more)} more
        </Button>
      )}
    </Group>
  )
  if (phone) {
    return (
      <Stack gap="xs" data-testid="contact-cards">
        {rows.map((c) => (
          <Card key={c._id} withBorder padding="sm" onClick={() => onEdit(c)} style={{ cursor: 'pointer' }} aria-label={`Contact ${c.name}`}>
            <Group justify="space-between" wrap="nowrap">
              <div style={{ minWidth: 0 }}>
                <Text fw={500} truncate>
                  {c.name}
                </Text>
                <Text size="sm" c="dimmed">
                  +{c.number}
                  {groupTitle(c.group_id) ? ` · ${groupTitle(c.group_id)}` : ''}
                </Text>
              </div>
              <ContactBadges c={c} justify="flex-end" />
            </Group>
          </Card>
        ))}
        {footer}
      </Stack>
    )
  }
  return (
    <Card withBorder padding={0}>
      <Table highlightOnHover data-testid="contact-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Number</Table.Th>
            <Table.Th>Group</Table.Th>
            <Table.Th>Labels</Table.Th>
            <Table.Th>Last wrote</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((c) => (
            <Table.Tr key={c._id}>
              <Table.Td>{c.name}</Table.Td>
              <Table.Td>+{c.number}</Table.Td>
              <Table.Td>{groupTitle(c.group_id) ?? '—'}</Table.Td>
              <Table.Td>
                <ContactBadges c={c} />
              </Table.Td>
              <Table.Td>{c.last_seen_at ? new Date(c.last_seen_at).toLocaleDateString() : '—'}</Table.Td>
              <Table.Td>
                <ActionIcon variant="subtle" aria-label={`Edit ${c.name}`} onClick={() => onEdit(c)}>
                  ✎
                </ActionIcon>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <div style={{ padding: '0 12px 8px' }}>{footer}</div>
    </Card>
  )
}

function ContactBadges({ c, justify = 'flex-start' }: { c: Contact; justify?: 'flex-start' | 'flex-end' }) {
  return (
    <Group gap={4} wrap="wrap" justify={justify}>
      {c.opted_out && (
        <Badge color="red" variant="filled" size="xs">
          Opted out
        </Badge>
      )}
      <LabelBadges names={c.labels} justify={justify} />
    </Group>
  )
}
