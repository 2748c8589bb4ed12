/** Empty state for tabs that work on one instance when none exists or none is selected. */
import { EmptyState } from '@mantine/core'

export function NeedInstance() {
  return <EmptyState title="No instance selected" description="Create an instance in the Instances tab, then pick it in the header." />
}
