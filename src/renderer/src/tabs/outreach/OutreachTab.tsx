/**
 * Outreach (docs/design.md §18): new broadcasts and how each is going, scheduled messages, and the send
 * governor of this number. Two columns on a wide screen, one on a phone.
 */
import { Grid, Stack, Title } from '@mantine/core'
import { NeedInstance } from '../../components/NeedInstance'
import { useContract } from '../../hooks'
import { useSelectedInstance } from '../../store'
import { BroadcastComposer } from './BroadcastComposer'
import { BroadcastList } from './BroadcastCard'
import { GovernorCard } from './GovernorCard'
import { SchedulesCard } from './SchedulesCard'

export function OutreachTab() {
  const inst = useSelectedInstance()
  const instanceId = inst?._id
  const on = (what: string) => (e: { type: string; instanceId?: string; what?: string }) => e.type === 'changed' && e.instanceId === instanceId && e.what === what
  const broadcasts = useContract('broadcasts.list', instanceId ? { instanceId } : null, on('broadcasts'))
  const groups = useContract('contactGroups.list', instanceId ? { instanceId } : null, on('contacts'))
  const contacts = useContract('contacts.list', instanceId ? { instanceId } : null, on('contacts'))
  if (!inst) return <NeedInstance />
  return (
    <Grid>
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Stack>
          <BroadcastComposer instanceId={inst._id} groups={groups.data ?? []} contacts={contacts.data?.items ?? []} />
          <Title order={5}>Broadcasts</Title>
          <BroadcastList list={broadcasts.data ?? []} instanceId={inst._id} groupTitle={(id) => groups.data?.find((g) => g._id === id)?.title} />
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 5 }}>
        <Stack>
          <SchedulesCard instanceId={inst._id} timezone={inst.settings.bot_timezone} groups={groups.data ?? []} contacts={contacts.data?.items ?? []} />
          <GovernorCard key={inst._id} inst={inst} />
        </Stack>
      </Grid.Col>
    </Grid>
  )
}
