/**
 * Settings → Workers (docs/design.md §22): the workers sharing the database and how many instances each runs,
 * shown only when there are several (docs/deploy.md); a worker unseen for a lease time is "Not
 * responding". Reloads when a worker claims or loses an instance (`cluster`, heard from every worker: a failover shows live).
 */
import { Card, Group, Stack, Text, Title } from '@mantine/core'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useContract } from '../../hooks'
import { isCluster, workerSummary } from '../cluster/cluster-text'

export function WorkersSection() {
  const cluster = useContract('cluster.get', {}, (e) => e.type === 'cluster' || (e.type === 'changed' && e.what === 'instance'))
  if (!isCluster(cluster.data)) return cluster.error ? <ErrorAlert error={cluster.error} /> : null
  const now = Date.now()
  return (
    <Card withBorder component="section" aria-label="Workers">
      <Title order={5} mb="xs">
        Workers
      </Title>
      <Stack gap="xs">
        <Text size="sm" c="dimmed">
          This desk runs on {cluster.data.workers.length} workers sharing one database; each instance runs on one of them, and moves to another if its worker stops.
        </Text>
        <Stack gap={6} data-testid="workers-list">
          {cluster.data.workers.map((w) => (
            <Group key={w.id} justify="space-between" gap="xs" wrap="wrap" data-testid="worker-row" p="xs" style={{ border: '1px solid var(--mantine-color-gray-3)', borderRadius: 6 }}>
              <Stack gap={0} style={{ minWidth: 0 }}>
                <Text size="sm" fw={500}>
                  {w.id}
                </Text>
                <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
                  {w.url}
                </Text>
              </Stack>
              <Text size="sm" c={w.alive ? undefined : 'red.7'}>
                {workerSummary(w, now)}
              </Text>
            </Group>
          ))}
        </Stack>
      </Stack>
    </Card>
  )
}
