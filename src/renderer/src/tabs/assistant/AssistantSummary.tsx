/**
 * The assistant's settings as someone who may not change them sees them (an agent: `assistant.get`
 * is theirs, `assistant.update` is not; docs/assistant.md, "Where"): whether it answers, which
 * model and where, what happens when it cannot answer, and the owner's instructions. Never the key.
 */
import { Badge, Group, Stack, Text } from '@mantine/core'
import type { AssistantView } from '../../../../shared/schemas/assistant'
import { presetOf } from '../../../../shared/domain/assistant-presets'
import { useContract } from '../../hooks'
import { AssistantCard } from './AssistantCard'

/**
 * {@link AssistantSummary} of instance `instanceId`, read here (the Inbox's side column for an agent,
 * who has no Settings tab); nothing while it loads or when it cannot be read.
 */
export function InstanceAssistantSummary({ instanceId }: { instanceId: string }) {
  const view = useContract('assistant.get', { instanceId }, (e) => e.type === 'activity' && e.instanceId === instanceId && e.entry.assistant !== undefined)
  return view.data ? <AssistantSummary view={view.data} /> : null
}

export function AssistantSummary({ view }: { view: AssistantView }) {
  const preset = presetOf(view.base_url)
  return (
    <AssistantCard title="How the assistant answers" testId="assistant-summary">
      <Stack gap="xs">
        <Group gap="xs">
          <Badge color={view.enabled ? 'teal' : 'gray'}>{view.enabled ? 'Answering customers' : 'Off'}</Badge>
          {view.enabled && <Text size="sm">{view.outside_hours ? 'also outside opening hours' : 'within opening hours'}</Text>}
        </Group>
        <Text size="sm">
          Model: <b>{view.model || 'not set'}</b> · {preset.id === 'custom' ? view.base_url || 'no server set' : preset.label}
        </Text>
        <Text size="sm">When it cannot answer: {view.fallback === 'handoff' ? 'the chat is handed to a person' : 'the default message is sent'}.</Text>
        {view.instructions && (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="assistant-summary-instructions">
            <b>Instructions:</b> {view.instructions}
          </Text>
        )}
        <Text size="xs" c="dimmed">
          Only the owner or a manager can change these settings.
        </Text>
      </Stack>
    </AssistantCard>
  )
}
