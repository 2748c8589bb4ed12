/**
 * Settings of the selected instance (general, bot actions, active days, active hours, webhook with its
 * secret and delivery log) and the app settings (SMTP for e-mail notifications). Each section saves on
 * its own and shows the server's validation messages next to the fields.
 */
import {
  Badge,
  Button,
  Card,
  Checkbox,
  Code,
  CopyButton,
  EmptyState,
  Group,
  NumberInput,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Textarea,
  Title
} from '@mantine/core'
import { useEffect, useState, type ReactNode } from 'react'
import { WEEK_DAYS, type Instance } from '../../../shared/schemas/records'
import { ErrorAlert, fieldError } from '../components/ErrorAlert'
import { NeedInstance } from '../components/NeedInstance'
import { useAction, useContract } from '../hooks'
import { call, useDesk, useSelectedInstance } from '../store'

function Section({ title, children, onSave, action, saved }: { title: string; children: ReactNode; onSave(): void; action: ReturnType<typeof useAction>; saved: boolean }) {
  return (
    <Card withBorder component="form" onSubmit={(e: React.FormEvent) => (e.preventDefault(), onSave())} aria-label={title}>
      <Title order={5} mb="sm">
        {title}
      </Title>
      <Stack gap="sm">
        {children}
        <ErrorAlert error={action.error} title="Not saved" />
        <Group>
          <Button type="submit" loading={action.busy}>
            Save
          </Button>
          {saved && !action.error && (
            <Text size="sm" c="teal" role="status">
              Saved
            </Text>
          )}
        </Group>
      </Stack>
    </Card>
  )
}

/** Save handler with a "Saved" flag that clears when the form changes again. */
function useSave() {
  const action = useAction()
  const [saved, setSaved] = useState(false)
  const save = (fn: () => Promise<unknown>) => action.run(async () => (setSaved(false), await fn(), setSaved(true), await useDesk.getState().refreshInstances()))
  return { action, saved, save }
}

export function SettingsTab() {
  const inst = useSelectedInstance()
  return (
    <Stack maw={900}>
      {inst ? <InstanceSettings key={inst._id} inst={inst} /> : <NeedInstance />}
      <SmtpSettings />
    </Stack>
  )
}

function InstanceSettings({ inst }: { inst: Instance }) {
  const s = inst.settings
  const id = inst._id
  const general = useSave()
  const [g, setG] = useState({ bot_name: s.bot_name, bot_timezone: s.bot_timezone, bot_lang: s.bot_lang, default_msg: s.default_msg })
  const actions = useSave()
  const [a, setA] = useState(s.actions)
  const days = useSave()
  const [d, setD] = useState(s.active_days)
  const hours = useSave()
  const [always, setAlways] = useState(s.active_hours.from === 'always')
  const [h, setH] = useState(always ? { from: '9:00', to: '17:00' } : s.active_hours)
  return (
    <>
      <Title order={4}>Settings of {s.bot_name}</Title>
      <Section title="General" action={general.action} saved={general.saved} onSave={() => general.save(() => call('settings.updateGeneral', { instanceId: id, ...g }))}>
        <SimpleGrid cols={3}>
          <TextInput label="Bot name" value={g.bot_name} onChange={(e) => setG({ ...g, bot_name: e.currentTarget.value })} error={fieldError(general.action.error, 'bot_name')} required />
          <TextInput
            label="Time zone"
            description="IANA name or offset (+05:30)"
            value={g.bot_timezone}
            onChange={(e) => setG({ ...g, bot_timezone: e.currentTarget.value })}
            error={fieldError(general.action.error, 'bot_timezone')}
          />
          <TextInput label="Language" description="e.g. en, pt-BR" value={g.bot_lang} onChange={(e) => setG({ ...g, bot_lang: e.currentTarget.value })} error={fieldError(general.action.error, 'bot_lang')} />
        </SimpleGrid>
        <Textarea
          label="Default message"
          description="Sent when nothing matches. {a|b} picks one at random, [name] is the contact's name."
          autosize
          minRows={2}
          value={g.default_msg}
          onChange={(e) => setG({ ...g, default_msg: e.currentTarget.value })}
          error={fieldError(general.action.error, 'default_msg')}
        />
      </Section>

      <Section title="Bot actions" action={actions.action} saved={actions.saved} onSave={() => actions.save(() => call('settings.updateActions', { instanceId: id, ...a }))}>
        <SimpleGrid cols={2}>
          {(
            [
              ['reply_msgs', 'Reply to messages'],
              ['send_default_msg', 'Send the default message'],
              ['reply_group_msgs', 'Reply in groups'],
              ['reply_unread_msgs', 'Reply to messages received while offline'],
              ['multi_device', 'Multi-device'],
              ['send_webhook', 'Send webhooks']
            ] as const
          ).map(([key, label]) => (
            <Switch key={key} label={label} checked={a[key]} onChange={(e) => setA({ ...a, [key]: e.currentTarget.checked })} />
          ))}
        </SimpleGrid>
      </Section>

      <Section title="Active days" action={days.action} saved={days.saved} onSave={() => days.save(() => call('settings.updateActiveDays', { instanceId: id, ...d }))}>
        <Group>
          {WEEK_DAYS.map((day) => (
            <Checkbox key={day} label={day[0]!.toUpperCase() + day.slice(1)} checked={d[day]} onChange={(e) => setD({ ...d, [day]: e.currentTarget.checked })} />
          ))}
        </Group>
      </Section>

      <Section
        title="Active hours"
        action={hours.action}
        saved={hours.saved}
        onSave={() => hours.save(() => call('settings.updateActiveHours', { instanceId: id, ...(always ? { from: 'always', to: 'always' } : h) }))}
      >
        <Switch label="Always active" checked={always} onChange={(e) => setAlways(e.currentTarget.checked)} />
        {!always && (
          <Group>
            <TextInput label="From" description="H:MM" value={h.from} onChange={(e) => setH({ ...h, from: e.currentTarget.value })} error={fieldError(hours.action.error, 'from')} />
            <TextInput label="To" description="H:MM (earlier than From = overnight)" value={h.to} onChange={(e) => setH({ ...h, to: e.currentTarget.value })} error={fieldError(hours.action.error, 'to')} />
          </Group>
        )}
      </Section>

      <WebhookSettings inst={inst} />
      <Card withBorder>
        <DeliveryLog instanceId={inst._id} />
      </Card>
    </>
  )
}

function WebhookSettings({ inst }: { inst: Instance }) {
  const w = inst.settings.webhook
  const save = useSave()
  const [url, setUrl] = useState(w.url ?? '')
  const [events, setEvents] = useState<string[]>(w.events)
  const [timeout, setTimeoutMs] = useState<number | string>(w.requestConfig.timeout_ms ?? '')
  const [headers, setHeaders] = useState(Object.entries(w.requestConfig.headers ?? {}).map(([k, v]) => `${k}: ${v}`).join('\n'))
  const headerObj = () =>
    Object.fromEntries(
      headers
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()])
    )
  return (
    <Section
      title="Webhook"
      action={save.action}
      saved={save.saved}
      onSave={() =>
        save.save(() =>
          call('settings.setWebhook', {
            instanceId: inst._id,
            webhook_url: url.trim(),
            events: events as Array<'onMessage' | 'onAnyMessage' | 'onConnection' | 'onMessageStatus'>,
            requestConfig: { headers: headerObj(), ...(timeout === '' ? {} : { timeout_ms: Number(timeout) }) }
          })
        )
      }
    >
      <TextInput label="URL" placeholder="https://example.com/hook" value={url} onChange={(e) => setUrl(e.currentTarget.value)} error={fieldError(save.action.error, 'webhook_url')} />
      <Checkbox.Group label="Events" value={events} onChange={setEvents}>
        <Group mt="xs">
          <Checkbox value="onMessage" label="onMessage (inbound)" />
          <Checkbox value="onAnyMessage" label="onAnyMessage (inbound and outbound)" />
          <Checkbox value="onConnection" label="onConnection (state changes)" />
          <Checkbox value="onMessageStatus" label="onMessageStatus (delivered, read, refused)" />
        </Group>
      </Checkbox.Group>
      <SimpleGrid cols={2}>
        <Textarea label="Extra headers" description="One per line: Name: value" autosize minRows={2} value={headers} onChange={(e) => setHeaders(e.currentTarget.value)} error={fieldError(save.action.error, 'requestConfig')} />
        <NumberInput label="Timeout (ms)" min={100} max={120000} value={timeout} onChange={setTimeoutMs} />
      </SimpleGrid>
      <Group gap="xs">
        <Text size="sm">Signing secret:</Text>
        <Code>{w.secret}</Code>
        <CopyButton value={w.secret}>{({ copied, copy }) => <Button size="compact-xs" variant="default" onClick={copy}>{copied ? 'Copied' : 'Copy'}</Button>}</CopyButton>
      </Group>
      <Text size="xs" c="dimmed">
        Sending is switched on by “Send webhooks” in Bot actions ({inst.settings.actions.send_webhook ? 'on' : 'off'} now).
      </Text>
    </Section>
  )
}

function DeliveryLog({ instanceId }: { instanceId: string }) {
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

function SmtpSettings() {
  const loaded = useContract('appSettings.get', {})
  const save = useSave()
  const [f, setF] = useState({ host: '', port: 587 as number | string, secure: false, user: '', pass: '', from: '' })
  const smtp = loaded.data?.smtp
  useEffect(() => {
    if (smtp) setF({ host: smtp.host, port: smtp.port, secure: smtp.secure, user: smtp.user ?? '', pass: '', from: smtp.from })
  }, [smtp])
  return (
    <Section
      title="App: e-mail (SMTP) for notifications"
      action={save.action}
      saved={save.saved}
      onSave={() =>
        save.save(async () => {
          const r = await call('appSettings.setSmtp', {
            smtp: f.host.trim()
              ? { host: f.host.trim(), port: Number(f.port), secure: f.secure, from: f.from.trim(), ...(f.user ? { user: f.user } : {}), ...(f.pass ? { pass: f.pass } : {}) }
              : null
          })
          await loaded.reload()
          return r
        })
      }
    >
      <Text size="sm" c="dimmed">
        Used by the send_notification action to e-mail you. Leave the host empty to switch e-mail off.
      </Text>
      <SimpleGrid cols={3}>
        <TextInput label="Host" value={f.host} onChange={(e) => setF({ ...f, host: e.currentTarget.value })} error={fieldError(save.action.error, 'smtp.host')} />
        <NumberInput label="Port" min={1} max={65535} value={f.port} onChange={(v) => setF({ ...f, port: v })} error={fieldError(save.action.error, 'smtp.port')} />
        <Switch mt="xl" label="TLS (secure)" checked={f.secure} onChange={(e) => setF({ ...f, secure: e.currentTarget.checked })} />
        <TextInput label="User" value={f.user} onChange={(e) => setF({ ...f, user: e.currentTarget.value })} />
        <PasswordInput
          label="Password"
          placeholder={smtp?.hasPassword ? '(unchanged)' : ''}
          value={f.pass}
          onChange={(e) => setF({ ...f, pass: e.currentTarget.value })}
        />
        <TextInput label="From address" value={f.from} onChange={(e) => setF({ ...f, from: e.currentTarget.value })} error={fieldError(save.action.error, 'smtp.from')} />
      </SimpleGrid>
    </Section>
  )
}
