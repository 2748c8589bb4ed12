/** A list (delivered as numbered text with its sections). */
import { ActionIcon, Button, Card, Group, Stack, TextInput, Textarea } from '@mantine/core'
import { useForm } from '@mantine/form'
import { call } from '../../../store'
import { SendFooter } from './SendFooter'
import { useSendForm, type SendFormProps } from './use-send-form'

const newRow = () => ({ title: '', description: '' })
const newSection = () => ({ title: '', rows: [newRow()] })

export function ListForm({ instanceId, chatId, onSent }: SendFormProps) {
  const form = useForm({ initialValues: { text: '', sections: [newSection()] } })
  const { onSubmit, busy, error, fields } = useSendForm(
    form,
    'msgdata.',
    (v) =>
      call('messages.sendList', {
        instanceId,
        chatId,
        msgdata: {
          text: v.text,
          sections: v.sections.map((s) => ({ ...(s.title ? { title: s.title } : {}), rows: s.rows.map((r) => ({ title: r.title, ...(r.description ? { description: r.description } : {}) })) }))
        }
      }),
    onSent
  )
  const sections = form.values.sections
  return (
    <form onSubmit={onSubmit}>
      <Stack gap="sm">
        <Textarea label="Body text" autosize minRows={2} data-testid="compose-text" {...form.getInputProps('text')} />
        {sections.map((s, i) => (
          <Card key={i} withBorder p="xs">
            <Group gap="xs" mb={6}>
              <TextInput size="xs" placeholder="Section title" aria-label="Section title" {...form.getInputProps(`sections.${i}.title`)} />
              <Button size="compact-xs" variant="subtle" color="red" disabled={sections.length === 1} onClick={() => form.removeListItem('sections', i)}>
                Remove section
              </Button>
            </Group>
            {s.rows.map((_, k) => (
              <Group key={k} gap="xs" mb={4} wrap="nowrap">
                <TextInput size="xs" placeholder="Row title" aria-label="Row title" style={{ flex: 1 }} {...form.getInputProps(`sections.${i}.rows.${k}.title`)} />
                <TextInput size="xs" placeholder="Description" aria-label="Row description" style={{ flex: 1 }} {...form.getInputProps(`sections.${i}.rows.${k}.description`)} />
                <ActionIcon size="sm" variant="subtle" color="red" aria-label="Remove row" disabled={s.rows.length === 1} onClick={() => form.removeListItem(`sections.${i}.rows`, k)}>
                  ×
                </ActionIcon>
              </Group>
            ))}
            <Button size="compact-xs" variant="default" onClick={() => form.insertListItem(`sections.${i}.rows`, newRow())}>
              Add row
            </Button>
          </Card>
        ))}
        <Button size="xs" variant="default" w={140} disabled={sections.length >= 10} onClick={() => form.insertListItem('sections', newSection())}>
          Add section
        </Button>
        <SendFooter label="list" busy={busy} error={error} fields={fields} />
      </Stack>
    </form>
  )
}
