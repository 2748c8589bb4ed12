/**
 * Erasing a customer's data (issue 25 §2): says what goes and that it cannot be undone, offers the
 * export first, and asks for the number typed before the button works; then says what was erased.
 */
import { Alert, Button, Group, List, Modal, Stack, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import type { ErasureResultT } from '../../../shared/operations/results'
import { useAction } from '../hooks'
import { call } from '../store'
import { downloadCustomerCsv, downloadCustomerJson } from './customer-export'
import { ErrorAlert } from './ErrorAlert'
import { confirmsNumber } from './confirm-number'

export function EraseCustomerModal({ instanceId, number, name, onClose, onErased }: { instanceId: string; number: string; name: string | null; onClose(): void; onErased(): void }) {
  const [typed, setTyped] = useState('')
  const [done, setDone] = useState<ErasureResultT | null>(null)
  const erase = useAction()
  const exporting = useAction()
  const who = name ? `${name} (+${number})` : `+${number}`
  if (done) {
    const d = done.deleted
    return (
      <Modal opened onClose={() => (onClose(), onErased())} title="Customer data erased">
        <Stack gap="sm" data-testid="erase-done">
          <Text size="sm">
            Erased {d.messages} message{d.messages === 1 ? '' : 's'}, {d.media_files} media file{d.media_files === 1 ? '' : 's'}, {d.survey_runs} survey answer set{d.survey_runs === 1 ? '' : 's'} and {d.contacts} contact record{d.contacts === 1 ? '' : 's'} of +{done.number}.
          </Text>
          <Text size="xs" c="dimmed">
            The erasure is recorded (when, by whom, how many records), not what was erased.
          </Text>
          <Group justify="flex-end">
            <Button onClick={() => (onClose(), onErased())}>Done</Button>
          </Group>
        </Stack>
      </Modal>
    )
  }
  return (
    <Modal opened onClose={onClose} title={`Erase all data of ${who}?`}>
      <form
        aria-label="Erase customer data"
        onSubmit={(e) => {
          e.preventDefault()
          if (confirmsNumber(typed, number)) void erase.run(async () => setDone(await call('customers.erase', { instanceId, number })))
        }}
      >
        <Stack gap="sm">
          <Text size="sm">This deletes, from this instance:</Text>
          <List size="sm" spacing={2}>
            <List.Item>every message of their chats, and what they wrote in groups</List.Item>
            <List.Item>the photos, videos and files downloaded from them</List.Item>
            <List.Item>their survey answers</List.Item>
            <List.Item>their contact record (name, labels, notes)</List.Item>
            <List.Item>their conversation in the inbox, and webhooks not yet delivered that carry them</List.Item>
          </List>
          <Alert color="red" variant="light" title="This cannot be undone">
            Only a backup made before still holds it. If they asked for a copy of their data, export it first.
          </Alert>
          <Group gap="xs">
            <Button size="xs" variant="default" loading={exporting.busy} onClick={() => void exporting.run(() => downloadCustomerJson(instanceId, number))}>
              Export data (JSON)
            </Button>
            <Button size="xs" variant="default" loading={exporting.busy} onClick={() => void exporting.run(() => downloadCustomerCsv(instanceId, number))}>
              Export messages (CSV)
            </Button>
          </Group>
          <ErrorAlert error={exporting.error} title="Export failed" />
          <TextInput label="Type the number to confirm" placeholder={`+${number}`} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" data-autofocus />
          <ErrorAlert error={erase.error} title="Not erased" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" color="red" disabled={!confirmsNumber(typed, number)} loading={erase.busy}>
              Erase data
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
