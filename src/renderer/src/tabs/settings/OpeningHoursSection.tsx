/**
 * Several windows a day and holidays (docs/design.md §16 "Opening hours"): per weekday its own windows (a lunch break:
 * 9:00–13:00 and 15:00–19:00), else the active hours above; holidays are closed all day. Which days
 * are open at all stays in Active days.
 */
import { ActionIcon, Button, Group, Stack, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import { WEEK_DAYS, type Instance, type WeekDay } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

type Window = { from: string; to: string }
const LABEL = (d: WeekDay) => d[0]!.toUpperCase() + d.slice(1)
/** `9:00` → `09:00` for a time input, which only takes two-digit hours. */
const toInput = (t: string) => (/^\d:/.test(t) ? `0${t}` : t)

export function OpeningHoursSection({ inst }: { inst: Instance }) {
  const model = inst.settings.opening_hours ?? { ranges: {}, holidays: [] }
  const ranges = Object.fromEntries(WEEK_DAYS.map((d) => [d, (model.ranges[d] ?? []).map((r) => ({ from: toInput(r.from), to: toInput(r.to) }))])) as Record<WeekDay, Window[]>
  const { form, section } = useSectionForm({ ranges, holidays: [...model.holidays] }, (v) => call('settings.openingHours', { instanceId: inst._id, ranges: v.ranges, holidays: v.holidays }))
  const [holiday, setHoliday] = useState('')
  const days = inst.settings.active_days
  return (
    <Section title="Split hours and holidays" section={section}>
      <Text size="sm" c="dimmed">
        Give a day its own windows (for a lunch break, or a late night). Days without windows use the active hours above.
      </Text>
      <Stack gap="xs">
        {WEEK_DAYS.map((d) => (
          <Group key={d} gap="xs" align="flex-end" data-testid={`day-${d}`}>
            <Text size="sm" w={90} c={days[d] ? undefined : 'dimmed'}>
              {LABEL(d)}
              {days[d] ? '' : ' (closed)'}
            </Text>
            {form.values.ranges[d].map((_, i) => (
              <Group key={i} gap={4} wrap="nowrap">
                <TextInput type="time" aria-label={`${LABEL(d)} window ${i + 1} from`} {...form.getInputProps(`ranges.${d}.${i}.from`)} w={132} />
                <Text size="sm">–</Text>
                <TextInput type="time" aria-label={`${LABEL(d)} window ${i + 1} to`} {...form.getInputProps(`ranges.${d}.${i}.to`)} w={132} />
                <ActionIcon variant="subtle" color="gray" aria-label={`Remove ${LABEL(d)} window ${i + 1}`} onClick={() => form.removeListItem(`ranges.${d}`, i)}>
                  ×
                </ActionIcon>
              </Group>
            ))}
            {form.values.ranges[d].length < 6 && (
              <Button size="compact-xs" variant="subtle" onClick={() => form.insertListItem(`ranges.${d}`, { from: '09:00', to: '13:00' })}>
                + window
              </Button>
            )}
          </Group>
        ))}
      </Stack>
      <Group gap="xs" align="flex-end">
        <TextInput type="date" label="Holidays" description="Closed all day (the away message answers)" value={holiday} onChange={(e) => setHoliday(e.currentTarget.value)} />
        <Button
          variant="default"
          disabled={!holiday || form.values.holidays.includes(holiday)}
          onClick={() => (form.setFieldValue('holidays', [...form.values.holidays, holiday].sort()), setHoliday(''))}
        >
          Add holiday
        </Button>
      </Group>
      {form.errors.holidays && (
        <Text size="sm" c="red">
          {form.errors.holidays}
        </Text>
      )}
      <Group gap={6}>
        {form.values.holidays.map((h, i) => (
          <Button key={h} size="compact-xs" variant="light" color="gray" rightSection="×" aria-label={`Remove holiday ${h}`} onClick={() => form.removeListItem('holidays', i)}>
            {h}
          </Button>
        ))}
      </Group>
    </Section>
  )
}
