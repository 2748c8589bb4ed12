/** The connection status of an instance as a coloured badge (docs/design.md §5 states). */
import { Badge } from '@mantine/core'

const COLORS: Record<string, string> = { CONNECTED: 'green', QR: 'yellow', CONNECTING: 'blue', DISCONNECTED: 'gray', LOGGED_OUT: 'red' }

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={COLORS[status] ?? 'gray'} variant="light" data-testid="status-badge">
      {status.replace('_', ' ')}
    </Badge>
  )
}
