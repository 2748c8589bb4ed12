/** The webhook: URL, events, request options and the signing secret (docs/design.md §11). */
import { Button, Checkbox, Code, CopyButton, Group, NumberInput, SimpleGrid, Text, TextInput, Textarea } from '@mantine/core'
import { WEBHOOK_EVENT_INFO, WEBHOOK_EVENTS, type Instance, type WebhookEvent } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

/** `Name: value` lines to a header object. */
function parseHeaders(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()])
  )
}

export function WebhookSection({ inst }: { inst: Instance }) {
  const w = inst.settings.webhook
  const { form, section } = useSectionForm(
    {
      webhook_url: w.url ?? '',
      events: w.events,
      timeout: (w.requestConfig.timeout_ms ?? ''),
      headers: Object.entries(w.requestConfig.headers ?? {})
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')
    },
    (v) =>
      call('settings.setWebhook', {
        instanceId: inst._id,
        webhook_url: v.webhook_url.trim(),
        events: v.events as WebhookEvent[],
        requestConfig: { headers: parseHeaders(v.headers), ...(v.timeout === '' ? {} : { timeout_ms: Number(v.timeout) }) }
      })
  )
  return (
    <Section title="Webhook" section={section}>
      <TextInput label="URL" placeholder="https://example.com/hook" {...form.getInputProps('webhook_url')} />
      <Checkbox.Group label="Events" {...form.getInputProps('events')}>
        <Group mt="xs">
          {WEBHOOK_EVENTS.map((e) => (
            <Checkbox key={e} value={e} label={`${e} (${WEBHOOK_EVENT_INFO[e]})`} />
          ))}
        </Group>
      </Checkbox.Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Textarea label="Extra headers" description="One per line: Name: value" autosize minRows={2} {...form.getInputProps('headers')} error={form.errors.requestConfig ?? form.errors['requestConfig.headers']} />
        <NumberInput label="Timeout (ms)" min={100} max={120000} {...form.getInputProps('timeout')} />
      </SimpleGrid>
      <Group gap="xs">
        <Text size="sm">Signing secret:</Text>
        <Code>{w.secret}</Code>
        <CopyButton value={w.secret}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Text size="xs" c="dimmed">
        Sending is switched on by “Send webhooks” in Bot actions ({inst.settings.actions.send_webhook ? 'on' : 'off'} now).
      </Text>
    </Section>
  )
}
