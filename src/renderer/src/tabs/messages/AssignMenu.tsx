/**
 * The open chat's assignee and the menu to change it (./assignment.ts says which choices): to me, to a
 * person who works on the instance (listed only for whoever may read the staff), round-robin,
 * unassign. The list and the chat follow the `assignment` event.
 */
import { Button, Menu } from '@mantine/core'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction, useContract } from '../../hooks'
import { call, useDesk, useMayCall } from '../../store'
import { assignChoices, type AssignTo } from './assignment'

export function AssignMenu({ instanceId, chatId, assigned, onChanged }: { instanceId: string; chatId: string; assigned: { id: string; name: string } | null; onChanged(): Promise<void> }) {
  const me = useDesk((s) => s.me)
  const staff = useContract('staff.list', useMayCall('staff.list') ? {} : null)
  const act = useAction()
  if (!me) return null
  const choices = assignChoices(me, staff.data ?? null, instanceId, assigned)
  const assign = (to: AssignTo) => act.run(async () => (await call('inbox.assign', { instanceId, chatId, ...to }), await onChanged()))
  return (
    <>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button size="xs" variant={assigned ? 'light' : 'default'} loading={act.busy} data-testid="assign-button" disabled={choices.length === 0}>
            {assigned ? `Assigned: ${assigned.name}` : 'Assign'}
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {choices.map((c) => (
            <Menu.Item key={c.label} color={'staff_id' in c.to && c.to.staff_id === null ? 'red' : undefined} onClick={() => void assign(c.to)}>
              {c.label}
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      </Menu>
      <ErrorAlert error={act.error} title="Not assigned" />
    </>
  )
}
