/**
 * History (docs/design.md §20): how long this instance keeps its messages (forever by
 * default, or N days) and the media files downloaded from them (as long as the message, or N days),
 * said in plain words: what goes, and when (once a day).
 */
import { Group, NumberInput, Radio, Stack, Text } from '@mantine/core'
import { DEFAULT_RETENTION, type Instance } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { explain, historyValues, retentionOf } from './retention-form'
import { Section, useSectionForm } from './Section'

export function HistorySection({ inst }: { inst: Instance }) {
  const { form, section } = useSectionForm(historyValues({ ...DEFAULT_RETENTION, ...inst.settings.retention }), (v) => call('settings.retention', { instanceId: inst._id, ...retentionOf(v) }))
  const v = form.values
  return (
    <Section title="History" section={section}>
      <Radio.Group label="Messages" {...form.getInputProps('messages')}>
        <Stack gap={6} mt={6}>
          <Radio value="forever" label="Keep every message" />
          <Group gap="xs" align="center">
            <Radio value="days" label="Delete messages after" />
            <Group gap="xs" wrap="nowrap" align="center">
              <NumberInput aria-label="Days to keep messages" min={1} max={36500} w={80} size="xs" hideControls disabled={v.messages !== 'days'} {...form.getInputProps('days')} />
              <Text size="sm">days</Text>
            </Group>
          </Group>
        </Stack>
      </Radio.Group>
      <Radio.Group label="Photos, videos, voice notes and documents downloaded from customers" {...form.getInputProps('media')}>
        <Stack gap={6} mt={6}>
          <Radio value="with-message" label="Keep them as long as their message" />
          <Group gap="xs" align="center">
            <Radio value="days" label="Delete files after" />
            <Group gap="xs" wrap="nowrap" align="center">
              <NumberInput aria-label="Days to keep media files" min={1} max={36500} w={80} size="xs" hideControls disabled={v.media !== 'days'} {...form.getInputProps('media_days')} />
              <Text size="sm">days</Text>
            </Group>
          </Group>
        </Stack>
      </Radio.Group>
      <Text size="sm" c="dimmed" data-testid="history-explained">
        {explain(retentionOf(v))}
      </Text>
    </Section>
  )
}
