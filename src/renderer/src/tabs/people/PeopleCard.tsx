/**
 * The people at the desk (owner): each person's name, login, role, instances and whether they
 * accepted their invite; add one (the invite link is shown once), change their role and instances,
 * make a new invite link (a lost link or a forgotten password), sign them out everywhere, remove them.
 */
import { Badge, Button, Card, Group, Menu, Paper, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import type { InviteViewT, StaffViewT } from '../../../../shared/operations/table/people'
import { CardHeader } from '../../components/CardHeader'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction, useContract } from '../../hooks'
import { call } from '../../store'
import { ConfirmModal } from './ConfirmModal'
import { useInstanceName } from './InstancesPicker'
import { instancesText } from './people-text'
import { InviteShown, PersonForm } from './PersonForm'

export function PeopleCard() {
  const people = useContract('staff.list', {})
  const [editing, setEditing] = useState<StaffViewT | 'new' | null>(null)
  const [removing, setRemoving] = useState<StaffViewT | null>(null)
  const [invite, setInvite] = useState<{ who: string; invite: InviteViewT } | null>(null)
  const [note, setNote] = useState<string | null>(null)
  const act = useAction()
  const nameOf = useInstanceName()
  const newInvite = (p: StaffViewT) => act.run(async () => (setNote(null), setInvite({ who: p.name, invite: await call('staff.invite', { id: p.id }) }), await people.reload()))
  const signOut = (p: StaffViewT) =>
    act.run(async () => {
      const { signed_out } = await call('staff.signOut', { id: p.id })
      setInvite(null)
      setNote(`${p.name} was signed out of ${signed_out} session${signed_out === 1 ? '' : 's'}.`)
    })
  return (
    <Card withBorder id="people" data-testid="people-card">
      <CardHeader title="People">
        <Button size="xs" onClick={() => setEditing('new')}>
          Add a person
        </Button>
      </CardHeader>
      <Text size="sm" c="dimmed" mb="sm">
        Managers run the bot and outreach; agents answer the Inbox of their instances. Each signs in with their own login and password.
      </Text>
      <ErrorAlert error={people.error ?? act.error} />
      {invite && (
        <Stack gap={4} mb="sm">
          <Text size="sm">New invite link for {invite.who}; earlier links stop working.</Text>
          <InviteShown invite={invite.invite} />
        </Stack>
      )}
      {note && (
        <Text size="sm" mb="sm" role="status">
          {note}
        </Text>
      )}
      {people.data?.length === 0 && (
        <Text size="sm" c="dimmed" data-testid="people-empty">
          Nobody yet: add the people who answer your customers.
        </Text>
      )}
      <Stack gap="xs">
        {people.data?.map((p) => (
          <PersonRow key={p.id} p={p} instances={instancesText(p.instance_ids, nameOf)} onEdit={() => setEditing(p)} onInvite={() => void newInvite(p)} onSignOut={() => void signOut(p)} onRemove={() => setRemoving(p)} />
        ))}
      </Stack>
      {editing && <PersonForm person={editing === 'new' ? null : editing} onDone={people.reload} onClose={() => setEditing(null)} />}
      {removing && (
        <ConfirmModal
          title={`Remove ${removing.name}?`}
          text={`${removing.name} can no longer sign in; their sessions end now and their conversations are unassigned. Their messages stay.`}
          action="Remove"
          onConfirm={async () => (await call('staff.delete', { id: removing.id }), await people.reload())}
          onClose={() => setRemoving(null)}
        />
      )}
    </Card>
  )
}

/** One person: who, role, instances, invited or active, and the actions. */
function PersonRow({ p, instances, onEdit, onInvite, onSignOut, onRemove }: { p: StaffViewT; instances: string; onEdit(): void; onInvite(): void; onSignOut(): void; onRemove(): void }) {
  return (
    <Paper withBorder p="xs" data-testid="person-row" data-login={p.login}>
      <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
        <div style={{ minWidth: 0 }}>
          <Group gap={6}>
            <Text fw={600} size="sm">
              {p.name}
            </Text>
            <Badge size="xs" variant="light" color={p.role === 'manager' ? 'grape' : 'blue'}>
              {p.role}
            </Badge>
            <Badge size="xs" variant="outline" color={p.active ? 'teal' : 'orange'}>
              {p.active ? 'active' : 'invited'}
            </Badge>
          </Group>
          <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
            {p.login} · {instances}
          </Text>
        </div>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Button size="compact-sm" variant="default" aria-label={`Actions for ${p.name}`}>
              ⋯
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={onEdit}>Change role and instances</Menu.Item>
            <Menu.Item onClick={onInvite}>New invite link</Menu.Item>
            <Menu.Item onClick={onSignOut}>Sign out everywhere</Menu.Item>
            <Menu.Divider />
            <Menu.Item color="red" onClick={onRemove}>
              Remove…
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Group>
    </Paper>
  )
}
