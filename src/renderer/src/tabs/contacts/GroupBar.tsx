/** The contact groups as filter chips (the list is filtered on the server), with making, renaming and deleting a group (docs/design.md §17). */
import { Button, Chip, Group, TextInput } from '@mantine/core'
import { useState } from 'react'
import type { ContactGroup } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'
import { call } from '../../store'

/** `editable` false: the chips only filter (no making, renaming or deleting groups). */
export function GroupBar(props: { instanceId: string; groups: readonly ContactGroup[]; value: string | null; onChange(id: string | null): void; onChanged(): Promise<void>; editable: boolean }) {
  const { instanceId, groups, value } = props
  const act = useAction()
  const [naming, setNaming] = useState<{ id: string | null; title: string } | null>(null)
  const selected = groups.find((g) => g._id === value)
  const save = () =>
    act.run(async () => {
      if (!naming) return
      const g = naming.id ? await call('contactGroups.update', { instanceId, id: naming.id, title: naming.title }) : await call('contactGroups.create', { instanceId, title: naming.title })
      setNaming(null)
      await props.onChanged()
      props.onChange(g._id)
    })
  const remove = (g: ContactGroup) =>
    window.confirm(`Delete the group "${g.title}"? Its contacts stay, in no group.`) &&
    void act.run(async () => {
      await call('contactGroups.delete', { instanceId, id: g._id })
      props.onChange(null)
      await props.onChanged()
    })
  return (
    <>
      <Group gap="xs" aria-label="Contact groups">
        <Chip.Group value={value ?? 'all'} onChange={(v) => props.onChange(v === 'all' ? null : (v))}>
          <Chip value="all" size="xs">
            All
          </Chip>
          {groups.map((g) => (
            <Chip key={g._id} value={g._id} size="xs">
              {g.title}
            </Chip>
          ))}
        </Chip.Group>
        {props.editable && (
          <Button size="compact-xs" variant="subtle" onClick={() => setNaming({ id: null, title: '' })}>
            + New group
          </Button>
        )}
        {props.editable && selected && (
          <>
            <Button size="compact-xs" variant="subtle" onClick={() => setNaming({ id: selected._id, title: selected.title })}>
              Rename
            </Button>
            <Button size="compact-xs" variant="subtle" color="red" onClick={() => remove(selected)}>
              Delete group
            </Button>
          </>
        )}
      </Group>
      {naming && (
        <Group mt="xs" gap="xs" component="form" onSubmit={(e) => (e.preventDefault(), void save())}>
          <TextInput size="xs" placeholder="Group name, e.g. Regulars" aria-label="Group name" value={naming.title} onChange={(e) => setNaming({ ...naming, title: e.currentTarget.value })} autoFocus />
          <Button size="xs" type="submit" loading={act.busy} disabled={!naming.title.trim()}>
            {naming.id ? 'Rename' : 'Create'}
          </Button>
          <Button size="xs" variant="subtle" onClick={() => setNaming(null)}>
            Cancel
          </Button>
        </Group>
      )}
      <ErrorAlert error={act.error} />
    </>
  )
}
