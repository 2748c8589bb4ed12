/**
 * Contacts and contact groups (docs/design.md §17): the customers the bot met and those the owner added or
 * imported, searched and filtered by group and label on the server (docs/ui.md "The long history"), a page at a time;
 * import from CSV (ImportModal), export, edit, opt out. Read-only for whoever may not change contacts
 * (an agent): no adding, importing, labels, groups or editing.
 */
import { ActionIcon, Badge, Button, Card, EmptyState, Group, Loader, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks'
import { useState } from 'react'
import type { Contact } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { saveCsv } from '../../components/files'
import { NeedInstance } from '../../components/NeedInstance'
import { useAction, useContract } from '../../hooks'
import { call, useDesk, useMayCall, useSelectedInstance } from '../../store'
import { ContactEditor } from './ContactEditor'
import { GroupBar } from './GroupBar'
import { ImportModal, ImportPicker } from './ImportModal'
import { LabelBadges } from '../../components/LabelBadges'
import { LabelManager } from './LabelManager'
import { useContactPages, type ContactPages } from './use-contact-pages'
import { customerLabel } from '../../components/confirm-number'

export function ContactsTab() {
  const inst = useSelectedInstance()
  const instanceId = inst?._id
  const changed = (e: { type: string; instanceId?: string; what?: string }) => e.type === 'changed' && e.instanceId === instanceId && e.what === 'contacts'
  const groups = useContract('contactGroups.list', instanceId ? { instanceId } : null, changed)
  const labels = useDesk((s) => s.labels)
  const [groupId, setGroupId] = useState<string | null>(null)
  const [label, setLabel] = useState<string | null>(null)
  const [query, setQuery] = useState('')
  const [q] = useDebouncedValue(query, 300)
  const pages = useContactPages(instanceId, { q, groupId, label })
  const [editing, setEditing] = useState<Contact | 'new' | null>(null)
  const [importing, setImporting] = useState<File | null>(null)
  const exporting = useAction()
  const canWrite = useMayCall('contacts.create')
  if (!instanceId) return <NeedInstance />
  const reload = async () => void (await Promise.all([pages.reload(), groups.reload()]))
  const groupTitle = (id: string | null) => groups.data?.find((g) => g._id === id)?.title
  const filtered = q.trim() !== '' || groupId !== null || label !== null
  return (
    <Stack>
      <Card withBorder>
        <Group justify="space-between" mb="sm">
          <Title order={4}>Contacts</Title>
          <Group gap="xs">
            {canWrite && (
              <>
                <Button size="xs" onClick={() => setEditing('new')}>
                  Add contact
                </Button>
                <ImportPicker onFile={setImporting} />
                <LabelManager />
              </>
            )}
            <Button size="xs" variant="default" loading={exporting.busy} disabled={!filtered && pages.contacts.length === 0} onClick={() => void exporting.run(async () => {
              const { fileName, csv } = await call('contacts.export', { instanceId })
              saveCsv(fileName, csv)
            })}>
              Export CSV
            </Button>
          </Group>
        </Group>
        <GroupBar instanceId={instanceId} groups={groups.data ?? []} value={groupId} onChange={setGroupId} onChanged={reload} editable={canWrite} />
        <Group mt="sm" gap="xs" wrap="nowrap" align="flex-start">
          <TextInput style={{ flex: 1, minWidth: 0 }} placeholder="Search name, number, @username or notes" value={query} onChange={(e) => setQuery(e.currentTarget.value)} aria-label="Search contacts" type="search" />
          <Select w={{ base: 130, sm: 180 }} placeholder="Any label" aria-label="Filter by label" clearable data={labels.map((l) => l.name)} value={label} onChange={setLabel} />
        </Group>
        <ErrorAlert error={pages.error ?? groups.error ?? exporting.error} />
      </Card>
      {!pages.loading && pages.contacts.length === 0 ? (
        filtered ? (
          <EmptyState title="No contact matches" description={q.trim() ? `No name, number or note contains “${q.trim()}” here.` : 'No contact is in this group or has this label yet.'} />
        ) : (
          <EmptyState title="No contacts yet" description="Customers who write to this number appear here by themselves. Add one by hand or import a CSV from your phone book or shop system." />
        )
      ) : (
        <ContactList pages={pages} groupTitle={groupTitle} onEdit={canWrite ? setEditing : null} />
      )}
      {editing && <ContactEditor instanceId={instanceId} contact={editing === 'new' ? null : editing} groups={groups.data ?? []} defaultGroup={groupId} onClose={() => setEditing(null)} onSaved={reload} />}
      {importing && <ImportModal instanceId={instanceId} file={importing} groups={groups.data ?? []} defaultGroup={groupId} onClose={() => setImporting(null)} onDone={reload} />}
    </Stack>
  )
}

/** The contacts, as cards on a phone and a table elsewhere; `onEdit` null: read-only. */
function ContactList({ pages, groupTitle, onEdit }: { pages: ContactPages; groupTitle(id: string | null): string | undefined; onEdit: ((c: Contact) => void) | null }) {
  const phone = useMediaQuery('(max-width: 48em)')
  const rows = pages.contacts
  const footer = (
    <Group justify="space-between" mt="xs" mih={24}>
      <Text size="xs" c="dimmed" data-testid="contact-count">
        {pages.hasMore ? `${rows.length} of ${pages.total ?? '?'} contacts` : `${rows.length} contact${rows.length === 1 ? '' : 's'}`}
      </Text>
      {pages.loading ? (
        <Loader size="xs" aria-label="Loading contacts" />
      ) : (
        pages.hasMore && (
          <Button size="compact-xs" variant="subtle" onClick={() => void pages.more()}>
            Show more
          </Button>
        )
      )}
    </Group>
  )
  if (phone) {
    return (
      <Stack gap="xs" data-testid="contact-cards">
        {rows.map((c) => (
          <Card key={c._id} withBorder padding="sm" onClick={onEdit ? () => onEdit(c) : undefined} style={{ cursor: onEdit ? 'pointer' : undefined }} aria-label={`Contact ${c.name}`}>
            <Group justify="space-between" wrap="nowrap">
              <div style={{ minWidth: 0 }}>
                <Text fw={500} truncate>
                  {c.name}
                </Text>
                <Text size="sm" c="dimmed">
                  {customerLabel(c.number, c.username)}
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
              <Table.Td>{customerLabel(c.number, c.username)}</Table.Td>
              <Table.Td>{groupTitle(c.group_id) ?? '—'}</Table.Td>
              <Table.Td>
                <ContactBadges c={c} />
              </Table.Td>
              <Table.Td>{c.last_seen_at ? new Date(c.last_seen_at).toLocaleDateString() : '—'}</Table.Td>
              <Table.Td>
                {onEdit && (
                  <ActionIcon variant="subtle" aria-label={`Edit ${c.name}`} onClick={() => onEdit(c)}>
                    ✎
                  </ActionIcon>
                )}
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
