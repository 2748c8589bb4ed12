/**
 * Structured editor of an intent/survey `action` (docs/api-seed.md §2.5): each follow-up is switched on by a chip
 * and edited with its own fields; photo and file pick attachments, survey picks a survey's first step.
 * Emits `undefined` when no action is on. Field problems from the server show next to the inputs.
 */
import { Card, Chip, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core'
import type { Action } from '../../../shared/schemas/records'
import { useContract } from '../hooks'
import { AttachmentPicker } from './AttachmentPicker'
import { MapLinkInput } from './MapLinkInput'
import { fieldError } from './ErrorAlert'

const KINDS = [
  ['send_location', 'Location'],
  ['send_contact', 'Contact'],
  ['send_photo', 'Photo'],
  ['send_file', 'File'],
  ['send_notification', 'Notify me'],
  ['add_to_group', 'Add to group'],
  ['start_survey', 'Start survey']
] as const
type Kind = (typeof KINDS)[number][0]

const EMPTY: { [K in Kind]-?: NonNullable<Action[K]> } = {
  send_location: { lat: '', lng: '', loc: '' },
  send_contact: { name: '', number: '' },
  send_photo: '',
  send_file: '',
  send_notification: {},
  add_to_group: '',
  start_survey: ''
}

export function ActionEditor({ instanceId, value, onChange, error }: { instanceId: string; value: Action | undefined; onChange(a: Action | undefined): void; error?: unknown }) {
  const action: Action = value ?? {}
  const on = KINDS.map(([k]) => k).filter((k) => action[k] !== undefined)
  const surveys = useContract('surveys.list', { instanceId })
  const set = (next: Action) => onChange(Object.keys(next).length ? next : undefined)
  const toggle = (kinds: string[]) => {
    const next: Record<string, unknown> = {}
    for (const k of kinds as Kind[]) next[k] = action[k] ?? EMPTY[k]
    set(next)
  }
  const patch = <K extends Kind>(k: K, v: Action[K]) => set({ ...action, [k]: v })
  const err = (f: string) => fieldError(error, `action.${f}`)
  const firstSteps = [...new Map((surveys.data ?? []).map((s) => [s.title, s])).values()]
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        Follow-up actions
      </Text>
      <Chip.Group multiple value={on} onChange={toggle}>
        <Group gap="xs">
          {KINDS.map(([k, label]) => (
            <Chip key={k} value={k} size="sm">
              {label}
            </Chip>
          ))}
        </Group>
      </Chip.Group>
      {on.length > 0 && (
        <Card withBorder p="sm">
          <Stack gap="sm">
            {action.send_location && (
              <MapLinkInput onCoordinates={(c) => patch('send_location', { ...action.send_location!, lat: String(c.latitude), lng: String(c.longitude) })} />
            )}
            {action.send_location && (
              <SimpleGrid cols={{ base: 1, xs: 3 }}>
                <TextInput label="Latitude" placeholder="28.6139" value={action.send_location.lat} onChange={(e) => patch('send_location', { ...action.send_location!, lat: e.currentTarget.value })} error={err('send_location.lat')} />
                <TextInput label="Longitude" placeholder="77.2090" value={action.send_location.lng} onChange={(e) => patch('send_location', { ...action.send_location!, lng: e.currentTarget.value })} error={err('send_location.lng')} />
                <TextInput label="Place name" value={action.send_location.loc} onChange={(e) => patch('send_location', { ...action.send_location!, loc: e.currentTarget.value })} error={err('send_location.loc')} />
              </SimpleGrid>
            )}
            {action.send_contact && (
              <SimpleGrid cols={2}>
                <TextInput label="Contact name" value={action.send_contact.name} onChange={(e) => patch('send_contact', { ...action.send_contact!, name: e.currentTarget.value })} error={err('send_contact.name')} />
                <TextInput label="Contact number" value={action.send_contact.number} onChange={(e) => patch('send_contact', { ...action.send_contact!, number: e.currentTarget.value })} error={err('send_contact.number')} />
              </SimpleGrid>
            )}
            {action.send_photo !== undefined && (
              <AttachmentPicker instanceId={instanceId} label="Photo" imagesOnly value={action.send_photo || null} onChange={(id) => patch('send_photo', id ?? '')} error={err('send_photo')} />
            )}
            {action.send_file !== undefined && (
              <AttachmentPicker instanceId={instanceId} label="File" value={action.send_file || null} onChange={(id) => patch('send_file', id ?? '')} error={err('send_file')} />
            )}
            {action.send_notification && (
              <SimpleGrid cols={2}>
                <TextInput
                  label="E-mail me at"
                  placeholder="owner@example.com"
                  value={action.send_notification.email ?? ''}
                  onChange={(e) => patch('send_notification', { ...action.send_notification, email: e.currentTarget.value || undefined })}
                  error={err('send_notification.email')}
                />
                <TextInput
                  label="WhatsApp me at"
                  placeholder="+1 555 010 2000"
                  value={action.send_notification.chatapp_number ?? ''}
                  onChange={(e) => patch('send_notification', { ...action.send_notification, chatapp_number: e.currentTarget.value || undefined })}
                  error={err('send_notification.chatapp_number')}
                />
              </SimpleGrid>
            )}
            {action.add_to_group !== undefined && (
              <TextInput label="Group id" placeholder="120363000000000000@g.us" value={action.add_to_group} onChange={(e) => patch('add_to_group', e.currentTarget.value)} error={err('add_to_group')} />
            )}
            {action.start_survey !== undefined && (
              <Select
                label="Survey"
                placeholder={firstSteps.length ? 'Pick a survey' : 'No surveys yet'}
                data={firstSteps.map((s) => ({ value: s._id, label: s.title }))}
                value={action.start_survey || null}
                onChange={(id) => patch('start_survey', id ?? '')}
                error={err('start_survey')}
              />
            )}
          </Stack>
        </Card>
      )}
    </Stack>
  )
}
