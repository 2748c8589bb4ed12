/**
 * Erasing a customer's data (docs/ui.md "The long history"): says what goes and that it cannot be undone, offers the
 * export first, and asks for the number typed before the button works; then says what was erased.
 * With several instances it covers every one this person may reach (the same customer writes to
 * several of the shop's numbers), unless they narrow it to this one; the answer names them.
 */
import { Alert, Button, Checkbox, Group, List, Modal, Stack, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import type { ErasureResultT } from '../../../shared/operations/results'
import { useAction } from '../hooks'
import { call, useDesk } from '../store'
import { downloadCustomerCsv, downloadCustomerJson } from './customer-export'
import { ErrorAlert } from './ErrorAlert'
import { confirmsNumber, customerLabel } from './confirm-number'

/** `number`: the customer's key (digits, or the LID of a customer known by `username`, typed to confirm). */
export function EraseCustomerModal({ instanceId, number, username, name, onClose, onErased }: { instanceId: string; number: string; username?: string | null; name: string | null; onClose(): void; onErased(): void }) {
  const [done, setDone] = useState<ErasureResultT | null>(null)
  const finish = () => (onClose(), onErased())
  const label = customerLabel(number, username)
  const who = name && name !== label ? `${name} (${label})` : label
  // One modal for both steps, above the contact editor's when opened from it.
  return (
    <Modal opened onClose={done ? finish : onClose} title={done ? 'Customer data erased' : `Erase all data of ${who}?`} zIndex={300}>
      {done ? <Erased result={done} onDone={finish} /> : <EraseForm instanceId={instanceId} number={number} username={username ?? null} onCancel={onClose} onErased={setDone} />}
    </Modal>
  )
}

/** What goes, the export offered first, and the number (or @username) typed before the button works. */
function EraseForm({ instanceId, number, username, onCancel, onErased }: { instanceId: string; number: string; username: string | null; onCancel(): void; onErased(result: ErasureResultT): void }) {
  const label = customerLabel(number, username)
  const byName = number.endsWith('@lid') && username !== null
  const [typed, setTyped] = useState('')
  const erase = useAction()
  const exporting = useAction()
  const instances = useDesk((s) => s.instances)
  const [everywhere, setEverywhere] = useState(true)
  const all = everywhere && instances.length > 1
  return (
    <form
      aria-label="Erase customer data"
      onSubmit={(e) => {
        e.preventDefault()
        // React's events bubble through portals: opened from the contact editor, this modal sits
        // inside the editor's form in the React tree, whose submit would save the contact being erased.
        e.stopPropagation()
        if (confirmsNumber(typed, number, username)) void erase.run(async () => onErased(await call('customers.erase', { instanceId, number, ...(all ? { type: 'all' as const } : {}) })))
      }}
    >
      <Stack gap="sm">
        {instances.length > 1 && (
          <Checkbox
            label={`From every instance (${instances.length}): ${instances.map((i) => i.settings.bot_name).join(', ')}`}
            description={byName ? 'The same customer (their LID) may have written to each of them.' : 'The same number may have written to each of them.'}
            checked={everywhere}
            onChange={(e) => setEverywhere(e.currentTarget.checked)}
            data-testid="erase-everywhere"
          />
        )}
        <Text size="sm">This deletes, from {all ? 'every instance' : 'this instance'}:</Text>
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
          <Button size="xs" variant="default" loading={exporting.busy} onClick={() => void exporting.run(() => downloadCustomerJson(instanceId, number, all))}>
            Export data (JSON)
          </Button>
          <Button size="xs" variant="default" loading={exporting.busy} onClick={() => void exporting.run(() => downloadCustomerCsv(instanceId, number, all))}>
            Export messages (CSV)
          </Button>
        </Group>
        <ErrorAlert error={exporting.error} title="Export failed" />
        <TextInput label={byName ? 'Type the username to confirm' : 'Type the number to confirm'} placeholder={label} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" data-autofocus />
        <ErrorAlert error={erase.error} title="Not erased" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" color="red" disabled={!confirmsNumber(typed, number, username)} loading={erase.busy}>
            Erase data
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

/** What the erasure deleted, and that only its record is kept. */
function Erased({ result, onDone }: { result: ErasureResultT; onDone(): void }) {
  const d = result.deleted
  return (
    <Stack gap="sm" data-testid="erase-done">
      <Text size="sm">
        Erased {d.messages} message{d.messages === 1 ? '' : 's'}, {d.media_files} media file{d.media_files === 1 ? '' : 's'}, {d.survey_runs} survey answer set{d.survey_runs === 1 ? '' : 's'} and {d.contacts} contact record{d.contacts === 1 ? '' : 's'} of {customerLabel(result.number, result.username)}
        {result.instances && result.instances.length > 1 ? `, from ${result.instances.length} instances:` : '.'}
      </Text>
      {result.instances && result.instances.length > 1 && (
        <List size="sm" spacing={2} data-testid="erased-instances">
          {result.instances.map((i) => (
            <List.Item key={i.instance_id}>
              {i.name}
              {i.bot_number ? ` (+${i.bot_number})` : ''}: {i.deleted.messages} message{i.deleted.messages === 1 ? '' : 's'}
            </List.Item>
          ))}
        </List>
      )}
      <Text size="xs" c="dimmed">
        The erasure is recorded (when, by whom, how many records), not what was erased.
      </Text>
      <Group justify="flex-end">
        <Button onClick={onDone}>Done</Button>
      </Group>
    </Stack>
  )
}
