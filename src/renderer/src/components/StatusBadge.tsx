/** The connection status of an instance as a coloured badge (docs/design.md §5 states). */
import { Badge } from '@mantine/core'

const COLORS: Record<string, string> = { CONNECTED: 'green', QR: 'yellow', CONNECTING: 'blue', DISCONNECTED: 'gray', LOGGED_OUT: 'red' }

/** `compact` (a phone's header): a dot of the status's colour, the word in its label and tooltip. */
export function StatusBadge({ status, compact = false }: { status: string; compact?: boolean }) {
  const word = status.replace('_', ' ')
  if (compact) {
    return (
      <span
        role="img"
        title={word}
        aria-label={word}
        data-testid="status-badge"
        data-status={status}
        style={{ display: 'inline-block', width: 10, height: 10, borderRadius: 5, background: `var(--mantine-color-${COLORS[status] ?? 'gray'}-6)` }}
      />
    )
  }
  return (
    <Badge color={COLORS[status] ?? 'gray'} variant="light" data-testid="status-badge" data-status={status}>
      {word}
    </Badge>
  )
}
