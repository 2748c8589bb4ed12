/** The labels (docs/design.md §18 "Labels"): rename, recolour or delete each; renaming or deleting changes every contact. */
import { ActionIcon, Button, ColorSwatch, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import { LABEL_COLORS, type Label } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'
import { call, useDesk } from '../../store'

export function LabelManager() {
  const [open, setOpen] = useState(false)
  const labels = useDesk((s) => s.labels)
  const act = useAction()
  const [name, setName] = useState('')
  return (
    <>
      <Button size="xs" variant="default" onClick={() => setOpen(true)}>
        Labels
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="Labels">
        <Stack gap="xs">
          {labels.length === 0 && (
            <Text size="sm" c="dimmed">
              No labels yet. Add one here, or type it on a contact or a conversation.
            </Text>
          )}
          {labels.map((l) => (
            <LabelRow key={l._id} label={l} run={act.run} />
          ))}
          <Group gap="xs" component="form" onSubmit={(e) => (e.preventDefault(), void act.run(async () => (await call('labels.create', { name }), setName(''))))}>
            <TextInput size="xs" placeholder="New label" aria-label="New label" value={name} onChange={(e) => setName(e.currentTarget.value)} />
            <Button size="xs" type="submit" disabled={!name.trim()} loading={act.busy}>
              Add
            </Button>
          </Group>
          <ErrorAlert error={act.error} />
        </Stack>
      </Modal>
    </>
  )
}

function LabelRow({ label, run }: { label: Label; run: ReturnType<typeof useAction>['run'] }) {
  const [name, setName] = useState(label.name)
  return (
    <Group gap="xs" wrap="nowrap" aria-label={`Label ${label.name}`}>
      <ColorSwatch color={`var(--mantine-color-${label.color}-6)`} size={18} />
      <TextInput size="xs" aria-label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} onBlur={() => name.trim() && name !== label.name && void run(() => call('labels.update', { id: label._id, name }))} style={{ flex: 1 }} />
      <Select size="xs" aria-label="Colour" w={110} data={[...LABEL_COLORS]} value={label.color} onChange={(color) => color && void run(() => call('labels.update', { id: label._id, color: color }))} allowDeselect={false} />
      <ActionIcon variant="subtle" color="red" aria-label={`Delete ${label.name}`} onClick={() => window.confirm(`Delete the label “${label.name}”? It comes off every contact.`) && void run(() => call('labels.delete', { id: label._id }))}>
        ×
      </ActionIcon>
    </Group>
  )
}
