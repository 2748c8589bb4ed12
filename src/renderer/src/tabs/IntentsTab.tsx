/**
 * Intents of the selected instance: a searchable table (cards on a phone); an editor with keywords as chips, the reply
 * and the structured action editor; delete with confirmation.
 */
import { Badge, Button, Card, EmptyState, Group, Loader, Modal, Stack, Table, TagsInput, Text, TextInput, Textarea, Title } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import { useState } from 'react'
import type { Action, Intent } from '../../../shared/schemas/records'
import { keywordList } from '../../../shared/domain/keywords'
import { ActionEditor } from '../components/ActionEditor'
import { ErrorAlert, fieldError } from '../components/ErrorAlert'
import { NeedInstance } from '../components/NeedInstance'
import { useAction, useContract } from '../hooks'
import { call, useSelectedInstance } from '../store'

/** Names of the follow-up actions as the table shows them. */
const ACTION_LABELS: Record<string, string> = {
  send_location: 'Location',
  send_contact: 'Contact',
  send_photo: 'Photo',
  send_file: 'File',
  send_notification: 'Notify me',
  add_to_group: 'Add to group',
  start_survey: 'Start survey'
}


/** An intent's keywords as chips. */
function KeywordBadges({ keyword }: { keyword: string }) {
  return (
    <Group gap={4}>
      {keywordList(keyword).map((k) => (
        <Badge key={k} variant="outline" size="sm" tt="none">
          {k}
        </Badge>
      ))}
    </Group>
  )
}

/** "Location, Notify me", or `none` when the intent has no follow-up actions. */
const actionSummary = (i: Intent, none: string) => Object.keys(i.action ?? {}).map((k) => ACTION_LABELS[k] ?? k).join(', ') || none

export function IntentsTab() {
  const inst = useSelectedInstance()
  const id = inst?._id
  const list = useContract('intents.list', id ? { instanceId: id } : null, (e) => e.type === 'changed' && e.what === 'intents' && e.instanceId === id)
  const [query, setQuery] = useState('')
  const [editing, setEditing] = useState<Intent | 'new' | null>(null)
  const [deleting, setDeleting] = useState<Intent | null>(null)
  const del = useAction()
  const narrow = useMediaQuery('(max-width: 48em)')
  if (!inst) return <NeedInstance />
  const rowActions = (i: Intent) => (
    <>
      <Button size="compact-sm" variant="light" onClick={() => setEditing(i)}>
        Edit
      </Button>
      <Button size="compact-sm" variant="subtle" color="red" onClick={() => setDeleting(i)}>
        Delete
      </Button>
    </>
  )
  const q = query.trim().toLowerCase()
  const rows = (list.data ?? []).filter((i) => !q || [i.title, i.keyword, i.reply].some((f) => f.toLowerCase().includes(q)))
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={4}>Intents</Title>
        <Group style={{ flex: narrow ? 1 : undefined }} wrap="nowrap">
          <TextInput placeholder="Search title, keyword, reply" value={query} onChange={(e) => setQuery(e.currentTarget.value)} aria-label="Search intents" w={narrow ? undefined : 280} style={{ flex: narrow ? 1 : undefined }} />
          <Button onClick={() => setEditing('new')}>New intent</Button>
        </Group>
      </Group>
      <ErrorAlert error={list.error ?? del.error} />
      {list.loading && !list.data && <Loader />}
      {list.data?.length === 0 && <EmptyState title="No intents yet" description="An intent answers messages that contain one of its keywords." />}
      {list.data && list.data.length > 0 && rows.length === 0 && <Text c="dimmed">No intent matches “{query}”.</Text>}
      {rows.length > 0 && narrow && (
        <Stack gap="xs">
          {rows.map((i) => (
            <Card key={i._id} withBorder padding="sm" data-testid="intent-row">
              <Text fw={600}>{i.title}</Text>
              <div style={{ margin: '4px 0' }}>
                <KeywordBadges keyword={i.keyword} />
              </div>
              <Text size="sm" lineClamp={3}>
                {i.reply}
              </Text>
              <Text size="xs" c="dimmed" mt={4}>
                {actionSummary(i, 'No follow-up actions')}
              </Text>
              <Group gap="xs" justify="flex-end" mt="xs">
                {rowActions(i)}
              </Group>
            </Card>
          ))}
        </Stack>
      )}
      {rows.length > 0 && !narrow && (
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Title</Table.Th>
              <Table.Th>Keywords</Table.Th>
              <Table.Th>Reply</Table.Th>
              <Table.Th>Actions</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((i) => (
              <Table.Tr key={i._id} data-testid="intent-row">
                <Table.Td>{i.title}</Table.Td>
                <Table.Td>
                  <KeywordBadges keyword={i.keyword} />
                </Table.Td>
                <Table.Td maw={320}>
                  <Text size="sm" lineClamp={2}>
                    {i.reply}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="xs">{actionSummary(i, '—')}</Text>
                </Table.Td>
                <Table.Td>
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    {rowActions(i)}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {editing && <IntentEditor instanceId={inst._id} intent={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={() => (setEditing(null), void list.reload())} />}
      <Modal opened={!!deleting} onClose={() => setDeleting(null)} title="Delete intent?">
        <Text size="sm">“{deleting?.title}” will stop answering.</Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={() => setDeleting(null)}>
            Cancel
          </Button>
          <Button color="red" onClick={() => del.run(async () => (await call('intents.delete', { instanceId: inst._id, id: deleting!._id }), setDeleting(null), await list.reload()))}>
            Delete
          </Button>
        </Group>
      </Modal>
    </Stack>
  )
}

function IntentEditor({ instanceId, intent, onClose, onSaved }: { instanceId: string; intent: Intent | null; onClose(): void; onSaved(): void }) {
  const [title, setTitle] = useState(intent?.title ?? '')
  const [keywords, setKeywords] = useState<string[]>(intent ? keywordList(intent.keyword) : [])
  const [reply, setReply] = useState(intent?.reply ?? '')
  const [action, setAction] = useState<Action | undefined>(intent?.action)
  const save = useAction()
  const submit = (e: React.FormEvent) => {
    e.preventDefault()
    void save.run(async () => {
      const body = { title: title.trim(), keyword: keywords.join(', '), reply }
      if (!keywords.length) throw Object.assign(new Error('Add at least one keyword.'), { code: 'VALIDATION_ERROR' })
      if (intent) await call('intents.update', { instanceId, id: intent._id, ...body, action: action ?? null })
      else await call('intents.create', { instanceId, ...body, ...(action ? { action } : {}) })
      onSaved()
    })
  }
  return (
    <Modal opened onClose={onClose} title={intent ? `Edit “${intent.title}”` : 'New intent'} size="xl">
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Title" required value={title} onChange={(e) => setTitle(e.currentTarget.value)} error={fieldError(save.error, 'title')} data-autofocus />
          <TagsInput
            label="Keywords"
            description="Press Enter or comma after each keyword or phrase"
            value={keywords}
            onChange={setKeywords}
            splitChars={[',']}
            error={fieldError(save.error, 'keyword')}
            data-testid="intent-keywords"
          />
          <Textarea label="Reply" autosize minRows={3} value={reply} onChange={(e) => setReply(e.currentTarget.value)} error={fieldError(save.error, 'reply')} description="{a|b} picks one at random; [name] is the contact's name." />
          <ActionEditor instanceId={instanceId} value={action} onChange={setAction} error={save.error} />
          <ErrorAlert error={save.error} title="Not saved" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.busy}>
              Save intent
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
