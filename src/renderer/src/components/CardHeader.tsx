import { Group, Title } from '@mantine/core'
import type { ReactNode } from 'react'

/** A card's title with its action (a button, a switch) on the right, as every card with one shows it. */
export function CardHeader({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <Group justify="space-between" mb="xs">
      <Title order={5}>{title}</Title>
      {children}
    </Group>
  )
}
