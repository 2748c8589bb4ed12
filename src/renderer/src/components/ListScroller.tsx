import type { ReactNode } from 'react'

/**
 * A list's own scroller beside a chat (a fixed height on a wide screen, the page's scroll on a phone).
 * A plain div: Mantine's ScrollArea lays its content out as a table, which defeats truncation.
 */
export function ListScroller({ phone, children }: { phone: boolean; children: ReactNode }) {
  return <div style={{ maxHeight: phone ? undefined : 420, overflowY: 'auto', overflowX: 'hidden' }}>{children}</div>
}
