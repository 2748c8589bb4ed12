/**
 * The assistant's usage (docs/assistant.md "Usage"): today's tokens against the day's limit, and the
 * last 14 days (tokens, answers, hand-offs, fallbacks, dry runs), in the instance's time zone.
 */
import { Group, Progress, Table, Text } from '@mantine/core'
import type { AssistantView } from '../../../../shared/schemas/assistant'
import type { Instance } from '../../../../shared/schemas/records'
import { useContract } from '../../hooks'
import { AssistantCard } from './AssistantCard'

const n = (x: number) => x.toLocaleString()

export function UsageCard({ inst, view }: { inst: Instance; view: AssistantView }) {
  const usage = useContract('assistant.usage', { instanceId: inst._id, days: 14 }, (e) => e.type === 'activity' && e.instanceId === inst._id && e.entry.assistant !== undefined)
  const limit = view.daily_token_limit
  const share = limit > 0 ? Math.min(100, (view.tokens_today / limit) * 100) : 0
  const days = [...(usage.data ?? [])].reverse()
  return (
    <AssistantCard title="Usage" testId="assistant-usage">
      <Group justify="space-between" mb={4}>
        <Text size="sm">Today</Text>
        <Text size="sm" data-testid="tokens-today">
          {n(view.tokens_today)} tokens{limit > 0 ? ` of ${n(limit)}` : ' (no daily limit)'}
        </Text>
      </Group>
      {limit > 0 && <Progress value={share} color={share >= 90 ? 'red' : share >= 70 ? 'orange' : 'teal'} aria-label="Tokens used today" />}
      {days.length === 0 ? (
        <Text size="sm" c="dimmed" mt="sm">
          No use yet: answers and dry runs show here, day by day.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={300} mt="sm">
          <Table striped fz="xs" horizontalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Day</Table.Th>
                <Table.Th ta="right">Tokens</Table.Th>
                <Table.Th ta="right">Answers</Table.Th>
                <Table.Th ta="right">Hand-offs</Table.Th>
                <Table.Th ta="right">Fallbacks</Table.Th>
                <Table.Th ta="right" title="Dry runs: Ask your assistant">Asks</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {days.map((d) => (
                <Table.Tr key={d.day}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }} title={d.day}>
                    {/* The last 14 days: month and day say which (narrow screens keep every column). */}
                    {d.day.slice(5)}
                  </Table.Td>
                  <Table.Td ta="right">{n(d.prompt_tokens + d.completion_tokens)}</Table.Td>
                  <Table.Td ta="right">{d.replies}</Table.Td>
                  <Table.Td ta="right">{d.handoffs}</Table.Td>
                  <Table.Td ta="right">{d.fallbacks}</Table.Td>
                  <Table.Td ta="right">{d.asks}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </AssistantCard>
  )
}
