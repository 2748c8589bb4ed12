/**
 * One broadcast and how far it got (docs/design.md §18 "Broadcasts"): a progress bar with counts, when the governor
 * expects it to finish and why it waits, the reason of a pause, pause / resume / cancel, and the
 * people skipped or failed with the reason for each.
 */
import { Badge, Button, Card, Collapse, Group, Progress, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import type { ContractOutput } from '../../../../shared/contract'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'
import { call } from '../../store'

type Broadcast = ContractOutput<'broadcasts.list'>[number]

const STATUS_COLOR = { sending: 'blue', paused: 'orange', done: 'green', cancelled: 'gray' } as const

/** "Tue 14:05" for a moment (the owner's clock). */
export function shortTime(iso: string): string {
  return new Date(iso).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' })
}

export function BroadcastCard({ b, instanceId, groupTitle }: { b: Broadcast; instanceId: string; groupTitle(id: string): string | undefined }) {
  const act = useAction()
  const [showProblems, setShowProblems] = useState(false)
  const p = b.progress
  const pct = (n: number) => (p.total ? (100 * n) / p.total : 0)
  const control = (verb: 'pause' | 'resume' | 'cancel') => act.run(() => call(`broadcasts.${verb}`, { instanceId, id: b._id }))
  const problems = [...b.skipped.map((s) => ({ ...s, kind: 'Skipped' })), ...b.failed.map((f) => ({ number: f.number, reason: f.reason, kind: 'Failed' }))]
  return (
    <Card withBorder data-testid="broadcast" aria-label={`Broadcast ${b.message.text ?? ''}`}>
      <Group justify="space-between" wrap="nowrap" mb={4}>
        <Text fw={500} truncate>
          {b.message.text ?? 'Files'}
        </Text>
        <Badge color={STATUS_COLOR[b.status]} style={{ flexShrink: 0 }}>
          {b.status}
        </Badge>
      </Group>
      <Text size="xs" c="dimmed" mb="xs">
        {b.send_type === 'group' ? `To ${groupTitle(b.to) ?? 'a contact group'}` : 'To numbers'} · started {shortTime(b.createdAt)}
        {b.schedule_id ? ' · scheduled' : ''}
      </Text>
      <Progress.Root size="lg" aria-label={`${p.sent} of ${p.total} sent`}>
        <Progress.Section value={pct(p.sent)} color="green" />
        <Progress.Section value={pct(p.skipped)} color="gray" />
        <Progress.Section value={pct(p.failed)} color="red" />
      </Progress.Root>
      <Text size="sm" mt={4} data-testid="broadcast-counts">
        {p.sent} of {p.total} sent · {p.pending} waiting · {p.skipped} skipped · {p.failed} failed
      </Text>
      {b.status === 'sending' && p.expected_finish && (
        <Text size="sm" c="dimmed">
          Expected to finish {shortTime(p.expected_finish)}
          {p.waiting ? ` · now waiting for ${p.waiting}` : ''}
        </Text>
      )}
      {b.status === 'paused' && b.status_reason && (
        <Text size="sm" c="orange" data-testid="pause-reason">
          Paused: {b.status_reason}
        </Text>
      )}
      <Group gap="xs" mt="xs">
        {b.status === 'sending' && (
          <Button size="xs" variant="default" onClick={() => void control('pause')} loading={act.busy}>
            Pause
          </Button>
        )}
        {b.status === 'paused' && (
          <Button size="xs" onClick={() => void control('resume')} loading={act.busy}>
            Resume
          </Button>
        )}
        {(b.status === 'sending' || b.status === 'paused') && (
          <Button size="xs" variant="subtle" color="red" onClick={() => window.confirm(`Cancel this broadcast? The ${p.pending} people still waiting will not get it.`) && void control('cancel')}>
            Cancel
          </Button>
        )}
        {(b.status === 'done' || b.status === 'cancelled') && (
          <Button size="xs" variant="subtle" color="red" onClick={() => void act.run(() => call('broadcasts.delete', { instanceId, id: b._id }))}>
            Delete
          </Button>
        )}
      </Group>
      <ErrorAlert error={act.error} />
      {problems.length > 0 && (
        <>
          <Button size="compact-xs" variant="subtle" mt="xs" onClick={() => setShowProblems(!showProblems)}>
            {showProblems ? 'Hide' : `Show the ${problems.length} skipped or failed`}
          </Button>
          <Collapse expanded={showProblems}>
            <Stack gap={2} mt={4} data-testid="broadcast-problems">
              {problems.map((x) => (
                <Text size="sm" key={`${x.kind}-${x.number}`}>
                  <Badge size="xs" variant="light" color={x.kind === 'Failed' ? 'red' : 'gray'} mr={6}>
                    {x.kind}
                  </Badge>
                  +{x.number}: {x.reason}
                </Text>
              ))}
            </Stack>
          </Collapse>
        </>
      )}
    </Card>
  )
}

export function BroadcastList({ list, instanceId, groupTitle }: { list: readonly Broadcast[]; instanceId: string; groupTitle(id: string): string | undefined }) {
  if (list.length === 0) return <Text c="dimmed" size="sm">No broadcasts yet.</Text>
  return (
    <Stack gap="sm">
      {list.map((b) => (
        <BroadcastCard key={b._id} b={b} instanceId={instanceId} groupTitle={groupTitle} />
      ))}
    </Stack>
  )
}
