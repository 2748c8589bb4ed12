/** Labels as badges in their colours (docs/design.md §18 "Labels"); a label the catalogue does not know is grey. */
import { Badge, Group } from '@mantine/core'
import { useDesk } from '../store'

export function LabelBadges({ names, justify = 'flex-start' }: { names: readonly string[]; justify?: 'flex-start' | 'flex-end' }) {
  const labels = useDesk((s) => s.labels)
  if (names.length === 0) return null
  return (
    <Group gap={4} wrap="wrap" justify={justify}>
      {names.map((n) => (
        <Badge key={n} size="xs" variant="light" color={labels.find((l) => l.name.toLowerCase() === n.toLowerCase())?.color ?? 'gray'}>
          {n}
        </Badge>
      ))}
    </Group>
  )
}
