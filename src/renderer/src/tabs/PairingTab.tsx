/**
 * Pairing: the live rotating QR (from `qr` events), the status, pairing by phone number, and for
 * sandbox instances a button that plays the phone scanning the QR.
 */
import { Alert, Button, Card, Center, Group, Image, Loader, Stack, Text, TextInput, Title } from '@mantine/core'
import { useEffect, useState } from 'react'
import { ErrorAlert, fieldError } from '../components/ErrorAlert'
import { NeedInstance } from '../components/NeedInstance'
import { StatusBadge } from '../components/StatusBadge'
import { useAction } from '../hooks'
import { call, useDesk, useSelectedInstance } from '../store'

export function PairingTab() {
  const inst = useSelectedInstance()
  const liveQr = useDesk((s) => (inst ? s.qr[inst._id] : undefined))
  const [qr, setQr] = useState<string | null>(null)
  const [phone, setPhone] = useState('')
  const [code, setCode] = useState<string | null>(null)
  const action = useAction()
  const status = inst?.settings.status

  // The first QR may have been shown before this tab opened: ask for the latest once.
  useEffect(() => {
    if (!inst || status !== 'QR') return setQr(null)
    call('pairing.qr', { instanceId: inst._id })
      .then((r) => setQr(r.qrDataUrl))
      .catch(() => {})
  }, [inst?._id, status])
  useEffect(() => {
    if (liveQr && status === 'QR') setQr(liveQr)
  }, [liveQr, status])

  if (!inst) return <NeedInstance />
  const id = inst._id
  const sandbox = inst.settings.channel === 'sandbox'
  return (
    <Stack maw={720}>
      <Group justify="space-between">
        <Title order={4}>Pair {inst.settings.bot_name}</Title>
        <StatusBadge status={inst.settings.status} />
      </Group>
      <ErrorAlert error={action.error} />
      {status === 'CONNECTED' && (
        <Alert color="green" title="Linked" data-testid="paired">
          Connected as +{inst.settings.bot_number}
          {inst.settings.user?.name ? ` (${inst.settings.user.name})` : ''}.
        </Alert>
      )}
      {(status === 'DISCONNECTED' || status === 'LOGGED_OUT') && (
        <Card withBorder>
          <Text mb="sm">The instance is not running. Start it to get a QR code.</Text>
          <Button onClick={() => action.run(() => call('instances.init', { instanceId: id }))} loading={action.busy}>
            Init
          </Button>
        </Card>
      )}
      {status === 'CONNECTING' && (
        <Group>
          <Loader size="sm" /> <Text>Connecting…</Text>
        </Group>
      )}
      {status === 'QR' && (
        <Card withBorder>
          <Group align="flex-start" wrap="nowrap">
            <Center w={280} h={280} bg="white">
              {qr ? <Image src={qr} alt="Pairing QR code" w={260} h={260} data-testid="qr-image" /> : <Loader />}
            </Center>
            <Stack gap="xs">
              <Text fw={600}>Scan with WhatsApp</Text>
              <Text size="sm" c="dimmed">
                On the phone: Settings → Linked devices → Link a device, then point the camera at this code. It refreshes by itself.
              </Text>
              {sandbox && (
                <Button variant="light" onClick={() => action.run(() => call('pairing.sandboxScan', { instanceId: id }))} loading={action.busy}>
                  Simulate phone scan (sandbox)
                </Button>
              )}
            </Stack>
          </Group>
          <form
            onSubmit={(e) => {
              e.preventDefault()
              void action.run(async () => setCode((await call('pairing.code', { instanceId: id, phone })).pairingCode))
            }}
          >
            <Group mt="lg" align="flex-end">
              <TextInput label="Or pair by phone number" placeholder="+1 555 010 2000" value={phone} onChange={(e) => setPhone(e.currentTarget.value)} error={fieldError(action.error, 'phone')} />
              <Button type="submit" variant="default" disabled={!phone.trim()}>
                Get pairing code
              </Button>
            </Group>
          </form>
          {code && (
            <Alert mt="md" title="Pairing code">
              Enter <b data-testid="pairing-code">{code}</b> on the phone under Linked devices → Link with phone number.
            </Alert>
          )}
        </Card>
      )}
    </Stack>
  )
}
