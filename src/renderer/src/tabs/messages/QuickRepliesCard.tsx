/**
 * The desk's quick replies (docs/design.md §15): saved snippets, inserted in the composer by typing
 * `/shortcut`. Listed, added, changed and deleted here; one list for every instance.
 */
import { ActionIcon, Button, Card, Group, ScrollArea, Stack, Text, TextInput, Textarea, UnstyledButton } from '@mantine/core'
import { useForm } from '@mantine/form'
import { useState } from 'react'
import type { QuickReply } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { showFieldErrors } from '../../components/form-errors'
import { useAction, useContract } from '../../hooks'
import { call } from '../../store'
import { CardHeader } from '../../components/CardHeader'

export function QuickRepliesCard() {
  const list = useContract('quickReplies.list', {}, (e) => e.type === 'quickReplies')
  const act = useAction()
  const [editing, setEditing] = useState<QuickReply | 'new' | null>(null)
  const form = useForm({ initialValues: { shortcut: '', text: '' } })
  const edit = (q: QuickReply | 'new') => {
    setEditing(q)
    form.setValues(q === 'new' ? { shortcut: '', text: '' } : { shortcut: q.shortcut, text: q.text })
    form.clearErrors()
  }
  const save = form.onSubmit((v) =>
    act.run(async () => {
      try {
        if (editing === 'new') await call('quickReplies.create', v)
        else if (editing) await call('quickReplies.update', { id: editing._id, ...v })
      } catch (err) {
        showFieldErrors(form, err)
        throw err
      }
      setEditing(null)
      await list.reload()
    })
  )
  return (
    <Card withBorder mt="md" data-testid="quick-replies">
      <CardHeader title="Quick replies">
        <Button size="xs" variant="default" onClick={() => edit('new')}>
          Add
        </Button>
      </CardHeader>
      <ErrorAlert error={list.error ?? act.error} form={{ keys: ['shortcut', 'text'] }} />
      {editing && (
        <form onSubmit={save} aria-label="Quick reply">
          <Stack gap="xs" mb="sm">
            <TextInput label="Shortcut" description="Type /shortcut in a message to insert the text." leftSection="/" placeholder="hours" {...form.getInputProps('shortcut')} />
            <Textarea label="Text" autosize minRows={2} {...form.getInputProps('text')} />
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
      {list.data?.length === 0 && !editing && (
        <Text size="sm" c="dimmed">
          No quick replies yet. Save answers you type often, like your opening hours.
        </Text>
      )}
      <ScrollArea.Autosize mah={200}>
        <Stack gap={4}>
          {list.data?.map((q) => (
            <Group key={q._id} justify="space-between" wrap="nowrap">
              <UnstyledEdit q={q} onEdit={() => edit(q)} />
              <ActionIcon variant="subtle" color="red" aria-label={`Delete /${q.shortcut}`} onClick={() => void act.run(async () => (await call('quickReplies.delete', { id: q._id }), await list.reload()))}>
                ×
              </ActionIcon>
            </Group>
          ))}
        </Stack>
      </ScrollArea.Autosize>
    </Card>
  )
}

function UnstyledEdit({ q, onEdit }: { q: QuickReply; onEdit(): void }) {
  return (
    <UnstyledButton style={{ minWidth: 0, flex: 1 }} onClick={onEdit} aria-label={`Edit /${q.shortcut}`}>
      <Text size="sm" fw={500}>
        /{q.shortcut}
      </Text>
      <Text size="xs" c="dimmed" truncate>
        {q.text}
      </Text>
    </UnstyledButton>
  )
}
