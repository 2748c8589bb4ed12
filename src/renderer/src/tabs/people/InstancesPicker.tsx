/** The instances a person or key works on: a multiselect of the instances; none picked is every instance. */
import { MultiSelect } from '@mantine/core'
import { useDesk } from '../../store'

export function InstancesPicker({ value, onChange, description }: { value: string[]; onChange(ids: string[]): void; description: string }) {
  const instances = useDesk((s) => s.instances)
  return (
    <MultiSelect
      label="Instances"
      description={description}
      placeholder={value.length ? '' : 'Every instance'}
      data={instances.map((i) => ({ value: i._id, label: i.settings.bot_name }))}
      value={value}
      onChange={onChange}
      clearable
      comboboxProps={{ withinPortal: true }}
    />
  )
}

/** The name of an instance by id (its bot name; the id's end when it is gone). */
export function useInstanceName(): (id: string) => string {
  const instances = useDesk((s) => s.instances)
  return (id) => instances.find((i) => i._id === id)?.settings.bot_name ?? `…${id.slice(-6)}`
}
