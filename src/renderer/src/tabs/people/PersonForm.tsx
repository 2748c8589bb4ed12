/**
 * Adding a person (name, login, role, instances; then the one-time invite link to send them) or
 * changing one's name, role and instances.
 */
import { Button, Group, Modal, SegmentedControl, Stack, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import type { InviteViewT, StaffViewT } from '../../../../shared/operations/table/people'
import { ErrorAlert, fieldError } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'
import { call } from '../../store'
import { InstancesPicker } from './InstancesPicker'
import { instanceIdsOf } from './people-text'
import { ShownOnce } from './ShownOnce'

const ROLE_HELP = {
  agent: 'Agent: the Inbox and contacts of their instances (read, reply, resolve, hand off).',
  manager: 'Manager: bot settings, intents, surveys, broadcasts and contacts; no backups, keys, people or webhooks.'
} as const

/** The invite link to hand over, once. */
export function InviteShown({ invite }: { invite: InviteViewT }) {
  return <ShownOnce label="Invite link (shown once)" value={invite.invite_url} note={`Send it to them: it works once, until ${new Date(invite.expires_at).toLocaleString()}.`} testId="invite-url" />
}

/** The add/edit dialog: `person` null adds one. */
export function PersonForm({ person, onDone, onClose }: { person: StaffViewT | null; onDone(): Promise<void>; onClose(): void }) {
  const [name, setName] = useState(person?.name ?? '')
  const [login, setLogin] = useState(person?.login ?? '')
  const [role, setRole] = useState<'agent' | 'manager'>(person?.role ?? 'agent')
  const [instances, setInstances] = useState<string[]>(person?.instance_ids ?? [])
  const [invite, setInvite] = useState<InviteViewT | null>(null)
  const act = useAction()
  const save = () =>
    act.run(async () => {
      const fields = { name: name.trim(), role, instance_ids: instanceIdsOf(instances) }
      if (person) {
        await call('staff.update', { id: person.id, ...fields })
        onClose()
      } else setInvite(await call('staff.create', { ...fields, login: login.trim() }))
      await onDone()
    })
  return (
    <Modal opened onClose={onClose} title={person ? `Change ${person.name}` : 'Add a person'} centered size="lg">
      {invite ? (
        <Stack>
          <Text size="sm">
            {name} can sign in as <b>{login}</b> once they set a password with this link.
          </Text>
          <InviteShown invite={invite} />
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={(e) => (e.preventDefault(), void save())} aria-label={person ? 'Change a person' : 'Add a person'}>
          <Stack>
            <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus error={fieldError(act.error, 'name')} />
            {!person && (
              <TextInput
                label="Login"
                description="Letters, digits and . _ @ -; what they type to sign in."
                value={login}
                onChange={(e) => setLogin(e.currentTarget.value)}
                required
                autoCapitalize="none"
                error={fieldError(act.error, 'login')}
              />
            )}
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                Role
              </Text>
              <SegmentedControl
                value={role}
                onChange={(v) => setRole(v)}
                data={[
                  { value: 'agent', label: 'Agent' },
                  { value: 'manager', label: 'Manager' }
                ]}
                aria-label="Role"
              />
              <Text size="xs" c="dimmed">
                {ROLE_HELP[role]}
              </Text>
            </Stack>
            <InstancesPicker value={instances} onChange={setInstances} description="The instances they work on; none picked: every instance." />
            <ErrorAlert error={act.error} form={{ keys: ['name', 'login'] }} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={act.busy} disabled={!name.trim() || (!person && login.trim().length < 2)}>
                {person ? 'Save' : 'Add and make the invite link'}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  )
}
