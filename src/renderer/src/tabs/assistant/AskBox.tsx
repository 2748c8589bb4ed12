/**
 * "Ask your assistant" (docs/assistant.md "The HTTP API": `POST /chatapp/assistant/ask`): what a customer writing this would get,
 * sent to nobody: the answer, whether it hands the chat to a person, the knowledge it drew on, the
 * tokens and the model's time; when it cannot answer, why, and the fallback the customer would get.
 */
import { Alert, Badge, Button, Group, Paper, Stack, Text, Textarea } from '@mantine/core'
import { useState } from 'react'
import type { AskResult } from '../../../../shared/schemas/assistant'
import type { Instance } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'
import { call } from '../../store'
import { AssistantCard } from './AssistantCard'

export function AskBox({ inst }: { inst: Instance }) {
  const [text, setText] = useState('')
  const [result, setResult] = useState<AskResult | null>(null)
  const ask = useAction()
  const submit = (e: React.FormEvent) => {
    e.preventDefault()
    if (!text.trim()) return
    void ask.run(async () => setResult(await call('assistant.ask', { instanceId: inst._id, text: text.trim() })))
  }
  return (
    <AssistantCard title="Ask your assistant" testId="assistant-ask">
      <form onSubmit={submit}>
        <Stack gap="xs">
          <Textarea placeholder="Write as a customer would, e.g. “Do you deliver on Sundays?”" aria-label="Question" autosize minRows={2} value={text} onChange={(e) => setText(e.currentTarget.value)} />
          <Group>
            <Button type="submit" loading={ask.busy} disabled={!text.trim()}>
              Ask
            </Button>
            <Text size="xs" c="dimmed">
              A dry run: nothing is sent to anybody; its tokens count towards today’s.
            </Text>
          </Group>
        </Stack>
      </form>
      <ErrorAlert error={ask.error} title="Not asked" />
      {result && (
        <Stack gap="xs" mt="sm" data-testid="ask-result">
          {result.fallback && (
            <Alert color="orange" title="The assistant could not answer">
              {result.fallback.detail}. The customer would get the {result.handoff ? 'hand-off message' : 'default message'}:
            </Alert>
          )}
          <Paper withBorder p="sm" bg="teal.0">
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="ask-reply">
              {result.reply || <i>(nothing)</i>}
            </Text>
          </Paper>
          {result.handoff && !result.fallback && (
            <Badge color="orange" variant="light">
              Hands the chat to a person{result.handoff_reason ? `: ${result.handoff_reason}` : ''}
            </Badge>
          )}
          <Group gap={6} data-testid="ask-sources">
            <Text size="xs" c="dimmed">
              {/* A failed call drew on nothing: what the search had found for it. */}
              {result.fallback ? 'Knowledge it found:' : 'From:'}
            </Text>
            {result.sources.length === 0 ? (
              <Text size="xs" c="dimmed">
                no knowledge matched
              </Text>
            ) : (
              result.sources.map((s) => (
                <Badge key={s.id} size="sm" variant="light">
                  {s.title}
                </Badge>
              ))
            )}
          </Group>
          <Text size="xs" c="dimmed">
            {result.model} · {(result.usage.prompt_tokens + result.usage.completion_tokens).toLocaleString()} tokens ({result.usage.prompt_tokens.toLocaleString()} in, {result.usage.completion_tokens.toLocaleString()} out) · {(result.ms / 1000).toFixed(1)} s
          </Text>
        </Stack>
      )}
    </AssistantCard>
  )
}
