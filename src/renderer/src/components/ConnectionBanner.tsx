/**
 * A banner when an instance loses its link (disconnected, or logged out by the phone), as the desktop
 * app's notification says (src/shared/domain/state-notice.ts); it goes when the instance connects
 * again or the owner closes it.
 */
import { Alert, Button, Group, Stack, Text } from '@mantine/core'
import { useEffect, useState } from 'react'
import { stateNotice, type Notice } from '../../../shared/domain/state-notice'
import { onContractEvent, useDesk, useMayCall } from '../store'

export function ConnectionBanner({ onPair }: { onPair(instanceId: string): void }) {
  const [notices, setNotices] = useState<Array<Notice & { instanceId: string; loggedOut: boolean }>>([])
  useEffect(
    () =>
      onContractEvent((e) => {
        if (e.type !== 'state') return
        const name = useDesk.getState().instances.find((i) => i._id === e.instanceId)?.settings.bot_name ?? 'An instance'
        const notice = stateNotice(e, name)
        setNotices((list) => {
          const rest = list.filter((n) => n.instanceId !== e.instanceId)
          return notice ? [...rest, { ...notice, instanceId: e.instanceId, loggedOut: e.state === 'LOGGED_OUT' }] : e.state === 'CONNECTED' ? rest : list
        })
      }),
    []
  )
  const instances = useDesk((s) => s.instances)
  // Pairing is for whoever may link instances; an agent only learns the instance is down.
  const mayPair = useMayCall('pairing.qr')
  // A deleted instance needs no banner.
  const shown = notices.filter((n) => instances.some((i) => i._id === n.instanceId))
  if (shown.length === 0) return null
  return (
    <Stack gap="xs" mb="md">
      {shown.map((n) => (
        <Alert key={n.instanceId} color={n.loggedOut ? 'red' : 'orange'} title={n.title} role="alert" withCloseButton onClose={() => setNotices((l) => l.filter((x) => x !== n))} data-testid="connection-banner">
          <Group justify="space-between" gap="xs">
            <Text size="sm">{n.loggedOut ? 'The phone no longer lists this device. Pair it again to answer customers.' : n.body}</Text>
            {n.loggedOut && mayPair && (
              <Button size="xs" variant="light" color="red" onClick={() => onPair(n.instanceId)}>
                Pair again
              </Button>
            )}
          </Group>
        </Alert>
      ))}
    </Stack>
  )
}
