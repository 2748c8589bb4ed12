/**
 * Settings → Assistant (docs/assistant.md): where the model runs (presets: OpenAI, Ollama or LM Studio
 * on this PC, llama.cpp's server, another server), its key (write-only: the form says whether one is
 * stored, never shows it), the owner's instructions, what happens when it cannot answer, its limits;
 * the day's usage; the shop's knowledge; and the "Ask your assistant" box.
 */
import { Accordion, Alert, Badge, Checkbox, Group, NumberInput, PasswordInput, Select, SimpleGrid, Stack, Switch, Text, TextInput, Textarea, Title } from '@mantine/core'
import { useState } from 'react'
import type { AssistantView } from '../../../../shared/schemas/assistant'
import type { Instance } from '../../../../shared/schemas/records'
import { ASSISTANT_PRESETS, presetOf } from '../../../../shared/domain/assistant-presets'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useContract } from '../../hooks'
import { call, useMayCall } from '../../store'
import { Section, useSectionForm } from '../settings/Section'
import { AskBox } from './AskBox'
import { AssistantSummary } from './AssistantSummary'
import { KnowledgeCard } from './KnowledgeCard'
import { UsageCard } from './UsageCard'

export function AssistantSection({ inst }: { inst: Instance }) {
  const view = useContract('assistant.get', { instanceId: inst._id }, (e) => e.type === 'activity' && e.instanceId === inst._id && e.entry.assistant !== undefined)
  const mayConfigure = useMayCall('assistant.update')
  return (
    <Stack gap="md" data-testid="assistant-section">
      <Title order={4}>Assistant</Title>
      {view.data ? (
        <>
          {view.data.circuit.state === 'open' && (
            <Alert color="red" title="The model’s server is failing" data-testid="assistant-circuit">
              {view.data.circuit.reason}. Customers get the fallback until {new Date(view.data.circuit.until!).toLocaleTimeString()}; saving the settings tries again at once.
            </Alert>
          )}
          {mayConfigure ? <AssistantForm inst={inst} view={view.data} onSaved={view.reload} /> : <AssistantSummary view={view.data} />}
          <UsageCard inst={inst} view={view.data} />
        </>
      ) : (
        <ErrorAlert error={view.error} title="The assistant’s settings could not be loaded" />
      )}
      <KnowledgeCard inst={inst} />
      {mayConfigure && <AskBox inst={inst} />}
    </Stack>
  )
}

function AssistantForm({ inst, view, onSaved }: { inst: Instance; view: AssistantView; onSaved: () => Promise<void> }) {
  const [preset, setPreset] = useState(presetOf(view.base_url).id)
  // The key is write-only: typed here, sent once, then cleared (the form never holds a stored one).
  const [apiKey, setApiKey] = useState('')
  const [removeKey, setRemoveKey] = useState(false)
  const { form, section } = useSectionForm(
    {
      enabled: view.enabled,
      base_url: view.base_url,
      model: view.model,
      instructions: view.instructions,
      handoff_message: view.handoff_message,
      fallback: view.fallback,
      outside_hours: view.outside_hours,
      daily_token_limit: view.daily_token_limit,
      timeout_s: view.timeout_ms / 1000,
      history_messages: view.history_messages,
      max_replies_per_hour: view.max_replies_per_hour,
      debounce_s: view.debounce_ms / 1000,
      max_reply_tokens: view.max_reply_tokens,
      knowledge_chunks: view.knowledge_chunks,
      embedding_model: view.embedding_model,
      transcribe_voice: view.transcribe_voice,
      transcription_model: view.transcription_model
    },
    async (v) => {
      await call('assistant.update', {
        instanceId: inst._id,
        enabled: v.enabled,
        base_url: v.base_url,
        model: v.model,
        ...(removeKey ? { api_key: '' } : apiKey.trim() ? { api_key: apiKey.trim() } : {}),
        instructions: v.instructions,
        handoff_message: v.handoff_message,
        fallback: v.fallback === 'handoff' ? 'handoff' : 'default',
        outside_hours: v.outside_hours,
        daily_token_limit: Number(v.daily_token_limit),
        timeout_ms: Math.round(Number(v.timeout_s) * 1000),
        history_messages: Number(v.history_messages),
        max_replies_per_hour: Number(v.max_replies_per_hour),
        debounce_ms: Math.round(Number(v.debounce_s) * 1000),
        max_reply_tokens: Number(v.max_reply_tokens),
        knowledge_chunks: Number(v.knowledge_chunks),
        embedding_model: v.embedding_model,
        transcribe_voice: v.transcribe_voice,
        transcription_model: v.transcription_model
      })
      setApiKey('')
      setRemoveKey(false)
      await onSaved()
    }
  )
  const chosen = ASSISTANT_PRESETS.find((p) => p.id === preset)!
  const pick = (id: string | null) => {
    const p = ASSISTANT_PRESETS.find((x) => x.id === id)
    if (!p) return
    setPreset(p.id)
    if (p.id === 'custom') return
    form.setValues({ base_url: p.base_url, model: p.model || form.values.model, embedding_model: form.values.embedding_model && p.embedding_model ? p.embedding_model : form.values.embedding_model, transcription_model: p.transcription_model || form.values.transcription_model })
  }
  return (
    <Section title="Assistant settings" section={section}>
      <Switch
        label="Answer customers with the assistant"
        description="After surveys and keyword intents, before the default message. It answers from your knowledge below and hands the chat to a person when it should."
        {...form.getInputProps('enabled', { type: 'checkbox' })}
      />
      <Select label="Where the model runs" data={ASSISTANT_PRESETS.map((p) => ({ value: p.id, label: p.label }))} value={preset} onChange={pick} allowDeselect={false} description={chosen.hint} />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Endpoint (its /v1 address)" placeholder="http://127.0.0.1:11434/v1" {...form.getInputProps('base_url')} />
        <TextInput label="Model" placeholder="llama3.1:8b" {...form.getInputProps('model')} />
      </SimpleGrid>
      <PasswordInput
        label="API key"
        placeholder={view.api_key_set ? 'A key is stored: leave empty to keep it' : chosen.needsKey ? 'sk-…' : 'Not needed for a model on this PC'}
        description="Sent only to the endpoint; never shown again, logged or exported."
        autoComplete="off"
        disabled={removeKey}
        value={apiKey}
        onChange={(e) => setApiKey(e.currentTarget.value)}
        error={form.errors.api_key}
        rightSectionWidth={view.api_key_set ? 70 : undefined}
        rightSection={view.api_key_set ? <Badge size="xs" color="teal">stored</Badge> : undefined}
      />
      {view.api_key_set && <Checkbox label="Remove the stored key" checked={removeKey} onChange={(e) => setRemoveKey(e.currentTarget.checked)} />}
      <Textarea label="Instructions" description="Tone, what to say and not to say. The app adds your shop’s name, hours and knowledge, and tells the model to answer only from them." autosize minRows={3} maxRows={10} {...form.getInputProps('instructions')} />
      <Textarea label="Message when it hands the chat to a person" autosize minRows={1} {...form.getInputProps('handoff_message')} />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Select
          label="When it cannot answer (no answer in time, an error, the day’s tokens used up)"
          data={[
            { value: 'default', label: 'Send the default message' },
            { value: 'handoff', label: 'Hand the chat to a person' }
          ]}
          allowDeselect={false}
          {...form.getInputProps('fallback')}
        />
        <NumberInput label="Tokens a day" description="0 = no limit (a model on this PC costs nothing)." min={0} step={10000} thousandSeparator="," {...form.getInputProps('daily_token_limit')} />
      </SimpleGrid>
      <Switch label="Answer outside opening hours too" description="Off: outside hours the away message answers, as before. On: the assistant answers, and the away message is its fallback." {...form.getInputProps('outside_hours', { type: 'checkbox' })} />
      <Accordion variant="contained">
        <Accordion.Item value="more">
          <Accordion.Control>Limits, knowledge search and voice notes</Accordion.Control>
          <Accordion.Panel>
            <Stack gap="sm">
              <SimpleGrid cols={{ base: 1, sm: 3 }}>
                <NumberInput label="Time limit (seconds)" min={1} max={120} {...form.getInputProps('timeout_s')} />
                <NumberInput label="Messages of history it reads" min={0} max={50} {...form.getInputProps('history_messages')} />
                <NumberInput label="Replies per chat per hour" description="Two bots writing to each other stop here." min={1} max={500} {...form.getInputProps('max_replies_per_hour')} />
                <NumberInput label="Wait for more messages (seconds)" description="A burst is answered once." min={0} max={15} step={0.5} decimalScale={1} {...form.getInputProps('debounce_s')} />
                <NumberInput label="Longest answer (tokens)" min={50} max={8000} {...form.getInputProps('max_reply_tokens')} />
                <NumberInput label="Knowledge passages it reads" min={1} max={12} {...form.getInputProps('knowledge_chunks')} />
              </SimpleGrid>
              <TextInput
                label="Embedding model (optional)"
                description="Finds knowledge by meaning as well as by words, e.g. text-embedding-3-small or nomic-embed-text. Empty: words only."
                {...form.getInputProps('embedding_model')}
              />
              <Group align="flex-end">
                <Switch label="Transcribe voice notes and answer them" {...form.getInputProps('transcribe_voice', { type: 'checkbox' })} />
                <TextInput label="Transcription model" placeholder="whisper-1" {...form.getInputProps('transcription_model')} />
              </Group>
              <Text size="xs" c="dimmed">
                Voice notes go to the endpoint’s /v1/audio/transcriptions (OpenAI; a local server only if it has one).
              </Text>
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
    </Section>
  )
}
