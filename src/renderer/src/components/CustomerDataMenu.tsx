/**
 * A customer's data (docs/design.md §20), from their conversation or contact: export it
 * (JSON with everything, CSV of the messages) or erase it (./EraseCustomerModal.tsx).
 */
import { Button, Menu } from '@mantine/core'
import { useState } from 'react'
import { useAction } from '../hooks'
import { downloadCustomerCsv, downloadCustomerJson } from './customer-export'
import { ErrorAlert } from './ErrorAlert'
import { EraseCustomerModal } from './EraseCustomerModal'
import { customerLabel } from './confirm-number'

/** `number`: the customer's key (digits, or the LID of a customer known by `username`). */
export function CustomerDataMenu({ instanceId, number, username, name, onErased }: { instanceId: string; number: string; username?: string | null; name?: string | null; onErased(): void }) {
  const [erasing, setErasing] = useState(false)
  const label = customerLabel(number, username)
  const exporting = useAction()
  return (
    <>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button size="xs" variant="default" loading={exporting.busy} aria-label={`Customer data of ${label}`}>
            Customer data
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>{label}</Menu.Label>
          <Menu.Item onClick={() => void exporting.run(() => downloadCustomerJson(instanceId, number))}>Export data (JSON)</Menu.Item>
          <Menu.Item onClick={() => void exporting.run(() => downloadCustomerCsv(instanceId, number))}>Export messages (CSV)</Menu.Item>
          <Menu.Divider />
          <Menu.Item color="red" onClick={() => setErasing(true)}>
            Erase data…
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <ErrorAlert error={exporting.error} title="Export failed" />
      {erasing && <EraseCustomerModal instanceId={instanceId} number={number} username={username ?? null} name={name ?? null} onClose={() => setErasing(false)} onErased={onErased} />}
    </>
  )
}
