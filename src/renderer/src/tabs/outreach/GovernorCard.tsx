/**
 * The send governor of this number (docs/design.md §18 "The send governor"): where it stands (today's quota after warm-up, what
 * it sent, when the next outreach message may leave, WhatsApp's capping) and its settings.
 */
import { Alert, Group, NumberInput, SimpleGrid, Switch, Text, TextInput } from '@mantine/core'
import { DEFAULT_OUTREACH, type Instance } from '../../../../shared/schemas/records'
import { useContract } from '../../hooks'
import { call } from '../../store'
import { Section, useSectionForm } from '../settings/Section'
import { shortTime } from './BroadcastCard'

export function GovernorCard({ inst }: { inst: Instance }) {
  const status = useContract('outreach.status', { instanceId: inst._id }, (e) => (e.type === 'changed' && e.instanceId === inst._id && (e.what === 'broadcasts' || e.what === 'instance')) || e.type === 'limits')
  const s = { ...DEFAULT_OUTREACH, ...inst.settings.outreach }
  const { form, section } = useSectionForm(
    {
      daily_limit: s.daily_limit,
      hourly_limit: s.hourly_limit,
      min_gap_seconds: s.min_gap_seconds,
      max_gap_seconds: s.max_gap_seconds,
      quiet: s.quiet_hours !== null,
      quiet_from: s.quiet_hours?.from ?? '21:00',
      quiet_to: s.quiet_hours?.to ?? '8:00',
      number_since: s.number_since ?? '',
      recipient_cooldown_hours: s.recipient_cooldown_hours,
      missed_run_grace_minutes: s.missed_run_grace_minutes
    },
    ({ quiet, quiet_from, quiet_to, number_since, ...v }) =>
      call('settings.outreach', { instanceId: inst._id, ...v, quiet_hours: quiet ? { from: quiet_from, to: quiet_to } : null, number_since: number_since || null })
  )
  const st = status.data
  return (
    <Section title="Send governor" section={section}>
      {st && (
        <div data-testid="governor-status">
          <Text size="sm">
            Today’s limit <b>{st.daily_quota}</b>
            {st.daily_quota < st.settings.daily_limit ? ' (warming up a young number)' : ''} · sent {st.sent_last_24h} in 24 h, {st.sent_last_hour} this hour
          </Text>
          <Text size="sm" c="dimmed">
            {st.waiting ? `Next message ${shortTime(st.next_slot)}: waiting for ${st.waiting}` : 'A message may go out now'}
          </Text>
          {st.blocked && (
            <Alert color="orange" mt="xs" title="WhatsApp limits this number">
              {st.blocked}
            </Alert>
          )}
        </div>
      )}
      <Text size="xs" c="dimmed">
        Broadcasts and scheduled messages only; the bot’s and your own replies are never held back.
      </Text>
      <TextInput
        type="date"
        label="Number on WhatsApp since"
        description="A number younger than 30 days warms up: 10 messages a day at first, then 20, 40, 80. Not set: treated as new."
        {...form.getInputProps('number_since')}
      />
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <NumberInput label="Daily limit" min={1} max={1000} {...form.getInputProps('daily_limit')} />
        <NumberInput label="Hourly limit" min={1} max={200} {...form.getInputProps('hourly_limit')} />
        <NumberInput label="Shortest gap (s)" min={5} max={3600} {...form.getInputProps('min_gap_seconds')} />
        <NumberInput label="Longest gap (s)" min={5} max={7200} {...form.getInputProps('max_gap_seconds')} />
        <NumberInput label="Hours between two messages to one person" min={0} max={720} {...form.getInputProps('recipient_cooldown_hours')} />
        <NumberInput label="Send a missed scheduled run up to (min late)" min={0} max={10080} {...form.getInputProps('missed_run_grace_minutes')} />
      </SimpleGrid>
      <Switch label="Quiet hours: nothing goes out at night" {...form.getInputProps('quiet', { type: 'checkbox' })} />
      {form.values.quiet && (
        <Group grow>
          <TextInput type="time" label="From" {...form.getInputProps('quiet_from')} />
          <TextInput type="time" label="To" {...form.getInputProps('quiet_to')} />
        </Group>
      )}
    </Section>
  )
}
