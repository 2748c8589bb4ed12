/** The webhook deliveries of an instance, live, with a retry for those not delivered. */
import { Badge, Button, EmptyState, Stack, Table, Title } from '@mantine/core'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction, useContract } from '../../hooks'
import { call } from '../../store'

export function DeliveryLog({ instanceId }: { instanceId: string }) {
  const log = useContract('webhookDeliveries.list', { instanceId }, (e) => e.type === 'delivery' && e.instanceId === instanceId)
  const retry = useAction()
  return (
    <Stack gap="xs">
      <Title order={5}>Webhook delivery log</Title>
      <ErrorAlert error={log.error ?? retry.error} />
      {log.data?.length === 0 && (
        <EmptyState size="sm" title="No deliveries yet" description="Deliveries appear here with their result." />
      )}
      {!!log.data?.length && (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>Event</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Last result</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {log.data.map((d) => (
              <Table.Tr key={d.id}>
                <Table.Td>{new Date(d.created_at).toLocaleString()}</Table.Td>
                <Table.Td>{d.event}</Table.Td>
                <Table.Td>
                  <Badge color={d.status === 'delivered' ? 'green' : d.status === 'failed' ? 'red' : 'blue'} variant="light">
                    {d.status}
                  </Badge>
                </Table.Td>
                <Table.Td>{d.attempts}</Table.Td>
                <Table.Td>{d.last_status ?? d.last_error ?? '—'}</Table.Td>
                <Table.Td>
                  {d.status !== 'delivered' && (
                    <Button size="compact-xs" variant="default" onClick={() => retry.run(async () => (await call('webhookDeliveries.retry', { instanceId, deliveryId: d.id }), await log.reload()))}>
                      Retry
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  )
}
