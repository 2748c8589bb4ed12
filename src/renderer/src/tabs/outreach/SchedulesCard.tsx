/**
 * Scheduled messages (docs/design.md §18 "Scheduled messages"): once, daily, weekly on chosen days or monthly, at a local time in
 * the instance's zone, to a contact, a contact group or a chat; each with its next run and last result.
 */
import { ActionIcon, Badge, Button, Card, Chip, Group, Modal, SegmentedControl, Select, Stack, Switch, Text, TextInput } from '@mantine/core'
import { useForm } from '@mantine/form'
import { useState } from 'react'
import { WEEK_DAYS, type Contact, type ContactGroup, type ScheduledMessage, type WeekDay } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { showFieldErrors } from '../../components/form-errors'
import { useAction, useContract } from '../../hooks'
import { call } from '../../store'
import { shortTime } from './BroadcastCard'
import { MessageFields, outreachMessage, type MessageValues } from './MessageFields'
import { CardHeader } from '../../components/CardHeader'

const REPEAT_LABEL = { none: 'Once', daily: 'Every day', weekly: 'Every week', monthly: 'Every month' } as const
const DAY_SHORT = (d: WeekDay) => d.slice(0, 1).toUpperCase() + d.slice(1, 3)

/** "Every week on Mon, Fri at 10:00" for a schedule. */
export function describeRepeat(s: Pick<ScheduledMessage, 'repeat' | 'start_at' | 'days'>): string {
  const time = s.start_at.slice(11)
  if (s.repeat === 'none') return `Once, ${s.start_at.slice(0, 10)} at ${time}`
  if (s.repeat === 'weekly') return `Every week${s.days.length ? ` on ${s.days.map(DAY_SHORT).join(', ')}` : ''} at ${time}`
  if (s.repeat === 'monthly') return `Every month on day ${Number(s.start_at.slice(8, 10))} at ${time}`
  return `Every day at ${time}`
}

export function SchedulesCard({ instanceId, timezone, groups, contacts }: { instanceId: string; timezone: string; groups: readonly ContactGroup[]; contacts: readonly Contact[] }) {
  const list = useContract('schedules.list', { instanceId }, (e) => e.type === 'changed' && e.instanceId === instanceId && e.what === 'schedules')
  const [editing, setEditing] = useState<ScheduledMessage | 'new' | null>(null)
  const act = useAction()
  const targetName = (s: ScheduledMessage) =>
    s.target.type === 'group' ? `group ${groups.find((g) => g._id === s.target.id)?.title ?? '?'}` : s.target.type === 'contact' ? (contacts.find((c) => c._id === s.target.id)?.name ?? 'a contact') : `+${s.target.id}`
  return (
    <Card withBorder data-testid="schedules">
      <CardHeader title="Scheduled messages">
        <Button size="xs" variant="default" onClick={() => setEditing('new')}>
          Schedule
        </Button>
      </CardHeader>
      <Text size="xs" c="dimmed" mb="xs">
        Times are in the instance’s zone ({timezone}); each run goes out behind the send governor.
      </Text>
      <ErrorAlert error={list.error ?? act.error} />
      <Stack gap="xs">
        {list.data?.length === 0 && (
          <Text size="sm" c="dimmed">
            Nothing scheduled. Remind customers of appointments, or announce the weekend menu every Friday.
          </Text>
        )}
        {list.data?.map((s) => (
          <Group key={s._id} justify="space-between" wrap="nowrap" aria-label={`Schedule ${s.title}`}>
            <div style={{ minWidth: 0 }}>
              <Text size="sm" fw={500} truncate>
                {s.title} <Text span c="dimmed" size="xs">→ {targetName(s)}</Text>
              </Text>
              <Text size="xs" c="dimmed">
                {describeRepeat(s)} · {s.active && s.next_run_at ? `next ${shortTime(s.next_run_at)}` : 'not active'}
                {s.runs[0] ? ` · last: ${s.runs[0].result} (${s.runs[0].detail})` : ''}
              </Text>
            </div>
            <Group gap={4} wrap="nowrap">
              {!s.active && <Badge color="gray">off</Badge>}
              <ActionIcon variant="subtle" aria-label={`Edit ${s.title}`} onClick={() => setEditing(s)}>
                ✎
              </ActionIcon>
              <ActionIcon variant="subtle" color="red" aria-label={`Delete ${s.title}`} onClick={() => window.confirm(`Delete “${s.title}”?`) && void act.run(() => call('schedules.delete', { instanceId, id: s._id }))}>
                ×
              </ActionIcon>
            </Group>
          </Group>
        ))}
      </Stack>
      {editing && <ScheduleEditor instanceId={instanceId} schedule={editing === 'new' ? null : editing} groups={groups} contacts={contacts} onClose={() => setEditing(null)} />}
    </Card>
  )
}

interface ScheduleValues {
  title: string
  target_type: 'group' | 'contact' | 'chat'
  target_id: string
  repeat: ScheduledMessage['repeat']
  date: string
  time: string
  days: WeekDay[]
  active: boolean
  message: MessageValues
}

function ScheduleEditor(props: { instanceId: string; schedule: ScheduledMessage | null; groups: readonly ContactGroup[]; contacts: readonly Contact[]; onClose(): void }) {
  const s = props.schedule
  const act = useAction()
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
  const form = useForm<ScheduleValues>({
    initialValues: {
      title: s?.title ?? '',
      target_type: s?.target.type ?? 'group',
      target_id: s?.target.id ?? '',
      repeat: s?.repeat ?? 'weekly',
      date: s?.start_at.slice(0, 10) ?? tomorrow,
      time: s?.start_at.slice(11) ?? '10:00',
      days: s?.days ?? [],
      active: s?.active ?? true,
      message: { text: s?.message.text ?? '', attachments: s?.message.attachments ?? [] }
    }
  })
  const v = form.values
  const save = form.onSubmit((x) =>
    act.run(async () => {
      const body = {
        title: x.title,
        target: { type: x.target_type, id: x.target_id },
        repeat: x.repeat,
        start_at: `${x.date}T${x.time}`,
        days: x.repeat === 'weekly' ? x.days : [],
        active: x.active,
        message: outreachMessage(x.message)
      }
      try {
        if (s) await call('schedules.update', { instanceId: props.instanceId, id: s._id, ...body })
        else await call('schedules.create', { instanceId: props.instanceId, ...body })
      } catch (err) {
        showFieldErrors(form, err)
        throw err
      }
      props.onClose()
    })
  )
  return (
    <Modal opened onClose={props.onClose} title={s ? `Scheduled: ${s.title}` : 'Schedule a message'} size="lg">
      <form onSubmit={save} aria-label="Scheduled message">
        <Stack gap="sm">
          <TextInput label="Name" placeholder="Weekend menu" {...form.getInputProps('title')} />
          <SegmentedControl
            data={[
              { value: 'group', label: 'Contact group' },
              { value: 'contact', label: 'Contact' },
              { value: 'chat', label: 'Number or chat' }
            ]}
            {...form.getInputProps('target_type')}
          />
          {v.target_type === 'chat' ? (
            <TextInput label="Number or chat" placeholder="+39 333 1234567 or a group’s …@g.us" {...form.getInputProps('target_id')} error={form.errors['target.id']} />
          ) : (
            <Select
              label={v.target_type === 'group' ? 'Contact group' : 'Contact'}
              searchable
              data={v.target_type === 'group' ? props.groups.map((g) => ({ value: g._id, label: g.title })) : props.contacts.map((c) => ({ value: c._id, label: `${c.name} (+${c.number})` }))}
              {...form.getInputProps('target_id')}
              error={form.errors['target.id']}
            />
          )}
          <SegmentedControl data={Object.entries(REPEAT_LABEL).map(([value, label]) => ({ value, label }))} {...form.getInputProps('repeat')} />
          <Group grow>
            <TextInput type="date" label={v.repeat === 'none' ? 'Date' : 'Starting'} {...form.getInputProps('date')} error={form.errors.start_at} />
            <TextInput type="time" label="Time" {...form.getInputProps('time')} />
          </Group>
          {v.repeat === 'weekly' && (
            <Chip.Group multiple value={v.days} onChange={(d) => form.setFieldValue('days', d)}>
              <Group gap={4} aria-label="Days">
                {WEEK_DAYS.map((d) => (
                  <Chip key={d} value={d} size="xs">
                    {DAY_SHORT(d)}
                  </Chip>
                ))}
              </Group>
            </Chip.Group>
          )}
          <MessageFields form={form} instanceId={props.instanceId} />
          <Switch label="Active" {...form.getInputProps('active', { type: 'checkbox' })} />
          <ErrorAlert error={act.error} form={{ keys: ['title', 'target.id', 'start_at', 'days', 'message'] }} />
          <Group justify="flex-end">
            <Button variant="subtle" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={act.busy}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
