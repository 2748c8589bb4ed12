/**
 * The shop's knowledge (docs/assistant.md "Knowledge"): the entries the assistant answers from,
 * searched as you type (any part of a word, any case or accents), written by hand or imported from a
 * file (.txt, .md, .pdf, .docx, or a question,answer .csv), changed and deleted. An entry shows how
 * many passages it was cut into (what the search finds and the model reads).
 */
import { ActionIcon, Badge, Button, FileButton, Group, Stack, Text, TextInput, Textarea, UnstyledButton } from '@mantine/core'
import { useForm } from '@mantine/form'
import { useEffect, useState } from 'react'
import type { KnowledgeListItem } from '../../../../shared/schemas/assistant'
import type { Instance } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { fileToBase64 } from '../../components/files'
import { showFieldErrors } from '../../components/form-errors'
import { useAction, useContract } from '../../hooks'
import { call, useMayCall } from '../../store'
import { snippetParts } from '../messages/highlight'
import { AssistantCard } from './AssistantCard'

/** The editing state of an entry not yet saved (ids are 24 hex digits, so it names none). */
const NEW = 'new'
const IMPORT_ACCEPT = '.txt,.md,.markdown,.pdf,.docx,.csv,text/plain,text/markdown,text/csv,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document'

export function KnowledgeCard({ inst }: { inst: Instance }) {
  const [typed, setTyped] = useState('')
  const [q, setQ] = useState('')
  // The search goes to the server once typing pauses.
  useEffect(() => {
    const t = setTimeout(() => setQ(typed.trim()), 250)
    return () => clearTimeout(t)
  }, [typed])
  const list = useContract('knowledge.list', { instanceId: inst._id, ...(q ? { q } : {}), limit: 200 })
  const mayEdit = useMayCall('knowledge.create')
  const act = useAction()
  // The entry being edited: its id, or NEW for one being written.
  const [editing, setEditing] = useState<string | null>(null)
  const form = useForm({ initialValues: { title: '', content: '' } })

  const edit = (id: string) =>
    void act.run(async () => {
      form.clearErrors()
      if (id === NEW) form.setValues({ title: '', content: '' })
      else {
        const entry = await call('knowledge.get', { instanceId: inst._id, id })
        form.setValues({ title: entry.title, content: entry.content })
      }
      setEditing(id)
    })
  const save = form.onSubmit((v) =>
    act.run(async () => {
      try {
        if (editing === NEW) await call('knowledge.create', { instanceId: inst._id, ...v })
        else if (editing) await call('knowledge.update', { instanceId: inst._id, id: editing, ...v })
      } catch (err) {
        showFieldErrors(form, err)
        throw err
      }
      setEditing(null)
      await list.reload()
    })
  )
  const importFile = (file: File | null) => {
    if (!file) return
    void act.run(async () => {
      await call('knowledge.import', { instanceId: inst._id, filename: file.name, dataBase64: await fileToBase64(file) })
      await list.reload()
    })
  }
  const remove = (e: KnowledgeListItem) =>
    void act.run(async () => {
      if (!window.confirm(`Delete “${e.title}” from the assistant’s knowledge?`)) return
      await call('knowledge.delete', { instanceId: inst._id, id: e._id })
      await list.reload()
    })

  const items = list.data ?? []
  return (
    <AssistantCard title="Knowledge" testId="knowledge">
      <Text size="sm" c="dimmed" mb="xs">
        What the assistant knows about your shop: prices, menu, delivery, returns, frequent questions. It answers only from this, your opening hours and the chat.
      </Text>
      <Group gap="xs" mb="sm" wrap="wrap">
        <TextInput placeholder="Search the knowledge" aria-label="Search the knowledge" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} style={{ flex: '1 1 200px' }} />
        {mayEdit && (
          <>
            <Button variant="default" onClick={() => edit(NEW)}>
              Add
            </Button>
            <FileButton onChange={importFile} accept={IMPORT_ACCEPT}>
              {(props) => (
                <Button variant="default" loading={act.busy} {...props}>
                  Import a file
                </Button>
              )}
            </FileButton>
          </>
        )}
      </Group>
      <ErrorAlert error={list.error ?? act.error} form={editing ? { keys: ['title', 'content'] } : undefined} />
      {editing && (
        <form onSubmit={save} aria-label="Knowledge entry">
          <Stack gap="xs" mb="md">
            <TextInput label="Title" placeholder="Delivery" {...form.getInputProps('title')} />
            <Textarea
              label="Content"
              description="Plain text or Markdown. A heading (# …) starts a new passage; “Q: … / A: …” pairs stay together."
              autosize
              minRows={4}
              maxRows={16}
              {...form.getInputProps('content')}
            />
            <Group gap="xs">
              <Button type="submit" size="xs" loading={act.busy}>
                Save
              </Button>
              <Button size="xs" variant="subtle" onClick={() => setEditing(null)}>
                Cancel
              </Button>
            </Group>
          </Stack>
        </form>
      )}
      {items.length === 0 && !list.loading && (
        <Text size="sm" c="dimmed">
          {q ? 'Nothing matches.' : 'No knowledge yet. Add what customers ask about, or import your FAQ, menu or price list (.txt, .md, .pdf, .docx, or a question,answer .csv).'}
        </Text>
      )}
      <Stack gap={6} data-testid="knowledge-list">
        {items.map((e) => (
          <Group key={e._id} justify="space-between" wrap="nowrap" align="flex-start">
            <UnstyledButton onClick={() => mayEdit && edit(e._id)} style={{ minWidth: 0, flex: 1 }} aria-label={`Edit ${e.title}`}>
              <Group gap={6} wrap="wrap">
                <Text size="sm" fw={600}>
                  {e.title}
                </Text>
                <Badge size="xs" variant="light" color="gray">
                  {e.chunks} {e.chunks === 1 ? 'passage' : 'passages'}
                </Badge>
                {e.file_name && (
                  <Badge size="xs" variant="outline" color="gray">
                    {e.file_name}
                  </Badge>
                )}
              </Group>
              <Text size="xs" c="dimmed" lineClamp={2} style={{ wordBreak: 'break-word' }}>
                {snippetParts(e.excerpt, e.highlights).map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
              </Text>
            </UnstyledButton>
            {mayEdit && (
              <ActionIcon variant="subtle" color="red" aria-label={`Delete ${e.title}`} onClick={() => remove(e)}>
                ×
              </ActionIcon>
            )}
          </Group>
        ))}
      </Stack>
    </AssistantCard>
  )
}
