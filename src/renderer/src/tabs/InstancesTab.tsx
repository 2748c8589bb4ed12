/**
 * Instances: cards with live status and bot number; create (real or sandbox), init, logout, delete.
 * With no instance yet, the first-run welcome comes first.
 */
import { Alert, Button, Card, EmptyState, Group, Modal, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core'
import { useState } from 'react'
import type { Instance } from '../../../shared/schemas/records'
import { ErrorAlert } from '../components/ErrorAlert'
import { StatusBadge } from '../components/StatusBadge'
import { useAction, useContract } from '../hooks'
import { Welcome, WELCOME_HIDDEN_KEY } from '../components/Welcome'
import { call, useDesk, useMayCall } from '../store'
import type { TabProps } from './tab-props'
import type { ClusterT } from '../../../shared/operations/table/cluster'
import { workerLine } from './cluster/cluster-text'

export function InstancesTab({ goTo }: TabProps) {
  const instances = useDesk((s) => s.instances)
  const loaded = useDesk((s) => s.instancesLoaded)
  const info = useDesk((s) => s.info)
  // Which worker runs each instance, for the owner of a desk on several workers (none on the desktop).
  const cluster = useContract('cluster.get', useMayCall('cluster.get') ? {} : null, (e) => e.type === 'cluster')
  const [channel, setChannel] = useState<string>(info?.defaultChannel ?? 'sandbox')
  const [name, setName] = useState('')
  const action = useAction()
  const create = () =>
    action.run(async () => {
      const inst = await call('instances.create', { channel: channel as 'sandbox' | 'baileys', ...(name.trim() ? { name: name.trim() } : {}) })
      setName('')
      await useDesk.getState().refreshInstances()
      useDesk.getState().select(inst._id)
    })
  const [welcomeHidden, setWelcomeHidden] = useState(() => localStorage.getItem(WELCOME_HIDDEN_KEY) === '1')
  const fresh = loaded && instances.length === 0
  // Making, deleting and unlinking instances is the owner's (`admin`); a manager starts and stops them.
  const owner = useMayCall('instances.create')
  return (
    <Stack>
      {fresh && !welcomeHidden && owner && (
        <Welcome
          goTo={goTo}
          onHide={() => {
            localStorage.setItem(WELCOME_HIDDEN_KEY, '1')
            setWelcomeHidden(true)
          }}
        />
      )}
      <Group justify="space-between">
        <Title order={4}>Instances</Title>
        <Group display={owner ? undefined : 'none'}>
          <TextInput placeholder="Name, e.g. Pizzeria Marco" aria-label="Name of the new instance" value={name} onChange={(e) => setName(e.currentTarget.value)} w={220} />
          <SegmentedControl
            aria-label="Channel of the new instance"
            value={channel}
            onChange={setChannel}
            data={[
              { value: 'sandbox', label: 'Sandbox' },
              { value: 'baileys', label: 'WhatsApp' }
            ]}
          />
          <Button onClick={create} loading={action.busy}>
            Create instance
          </Button>
        </Group>
      </Group>
      <ErrorAlert error={action.error} />
      {fresh && welcomeHidden && (
        <EmptyState
          title="No instances yet"
          description="An instance is one bot linked to one phone number. Create a sandbox instance to try bots without a phone."
        />
      )}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {instances.map((i) => (
          <InstanceCard key={i._id} inst={i} cluster={cluster.data} onPair={() => (useDesk.getState().select(i._id), goTo('pairing'))} />
        ))}
      </SimpleGrid>
    </Stack>
  )
}

/** Why the instance is in its state, and WhatsApp's outreach limits (capping, reach-out lock), live. */
function InstanceHealth({ instanceId }: { instanceId: string }) {
  // The assistant's answers (and fallbacks) come as activity: its circuit may have opened or closed.
  const health = useContract('instances.health', { instanceId }, (e) => (e.type === 'state' || e.type === 'limits' || (e.type === 'activity' && e.entry.assistant !== undefined)) && e.instanceId === instanceId)
  const h = health.data
  if (!h) return null
  const capping = h.limits?.capping
  const lock = h.limits?.reachout_lock
  const until = (iso?: string) => (iso ? ` until ${new Date(iso).toLocaleString()}` : '')
  return (
    <Stack gap={4} mt="xs">
      {h.reason && (
        <Text size="xs" c="dimmed" data-testid="status-reason">
          {h.reason}
        </Text>
      )}
      {capping && capping.status !== 'NONE' && (
        <Alert color={capping.status === 'CAPPED' ? 'red' : 'yellow'} p="xs" data-testid="capping">
          <Text size="xs">
            {capping.status === 'CAPPED' ? 'WhatsApp caps new chats' : 'WhatsApp warns about new chats'}
            {capping.used !== undefined && capping.total !== undefined ? `: ${capping.used} of ${capping.total} used` : ''}
            {until(capping.until)}. {capping.status === 'CAPPED' ? 'Messages to people who have not written to you are paused.' : 'Send fewer messages to people who have not written to you.'}
          </Text>
        </Alert>
      )}
      {h.assistant?.state === 'open' && (
        <Alert color="red" p="xs" data-testid="assistant-circuit-health">
          <Text size="xs">
            The assistant’s model server is failing ({h.assistant.reason ?? 'no reason given'}): customers get the fallback{until(h.assistant.until ?? undefined)}.
          </Text>
        </Alert>
      )}
      {lock?.active && (
        <Alert color="red" p="xs" data-testid="reachout-lock">
          <Text size="xs">WhatsApp has locked this number from reaching out to new people{until(lock.until)}.</Text>
        </Alert>
      )}
    </Stack>
  )
}

/** Today's and the last 7 days' activity: messages in and out, the bot's answer rate, failures. */
function ActivityCounts({ instanceId }: { instanceId: string }) {
  const stats = useContract('instances.stats', { instanceId }, (e) => (e.type === 'message' || e.type === 'status' || e.type === 'delivery') && e.instanceId === instanceId)
  if (!stats.data) return null
  const line = (label: string, p: typeof stats.data.today) =>
    `${label}: ${p.messages_in} in · ${p.messages_out} out` +
    (p.bot_answer_rate === null ? '' : ` · bot answered ${Math.round(p.bot_answer_rate * 100)}%`) +
    (p.failed_sends ? ` · ${p.failed_sends} failed send${p.failed_sends > 1 ? 's' : ''}` : '') +
    (p.webhook_failures ? ` · ${p.webhook_failures} webhook failure${p.webhook_failures > 1 ? 's' : ''}` : '')
  return (
    <Stack gap={0} mt="xs" data-testid="activity">
      <Text size="xs">{line('Today', stats.data.today)}</Text>
      <Text size="xs" c="dimmed">
        {line('7 days', stats.data.last_7_days)}
      </Text>
    </Stack>
  )
}

function InstanceCard({ inst, onPair, cluster }: { inst: Instance; onPair(): void; cluster?: ClusterT }) {
  const selectedId = useDesk((s) => s.selectedId)
  const [confirm, setConfirm] = useState(false)
  const [unlink, setUnlink] = useState(false)
  const action = useAction()
  const owner = useMayCall('instances.delete')
  const s = inst.settings
  const worker = workerLine(cluster, inst.session_id)
  const run = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), await useDesk.getState().refreshInstances()))
  return (
    <Card withBorder shadow={selectedId === inst._id ? 'md' : 'xs'} data-testid="instance-card" data-instance-id={inst._id}>
      <Group justify="space-between" mb="xs">
        <Text fw={600}>{s.bot_name}</Text>
        <StatusBadge status={s.status} />
      </Group>
      <Text size="sm" c="dimmed">
        {s.channel === 'sandbox' ? 'Sandbox' : 'WhatsApp'} · {s.bot_number ? `+${s.bot_number}` : 'no number linked'}
      </Text>
      {worker && (
        <Text size="xs" c="dimmed" data-testid="instance-worker">
          {worker}
        </Text>
      )}
      {s.last_connected_at && (
        <Text size="xs" c="dimmed" data-testid="last-connected">
          Last connected {new Date(s.last_connected_at).toLocaleString()}
        </Text>
      )}
      <Text size="xs" c="dimmed" ff="monospace">
        {inst._id}
      </Text>
      <InstanceHealth instanceId={inst._id} />
      <ActivityCounts instanceId={inst._id} />
      <ErrorAlert error={action.error} />
      <Group mt="md" gap="xs">
        <Button size="xs" variant="light" onClick={() => useDesk.getState().select(inst._id)} disabled={selectedId === inst._id}>
          {selectedId === inst._id ? 'Selected' : 'Select'}
        </Button>
        {s.status !== 'CONNECTED' && s.status !== 'CONNECTING' && (
          <Button size="xs" onClick={() => run(async () => (await call('instances.init', { instanceId: inst._id }), onPair()))} loading={action.busy}>
            {s.last_connected_at ? 'Start again' : 'Init & pair'}
          </Button>
        )}
        {(s.status === 'CONNECTED' || s.status === 'CONNECTING' || s.status === 'QR') && (
          <>
            <Button size="xs" variant="default" onClick={() => run(() => call('instances.stop', { instanceId: inst._id }))} loading={action.busy}>
              Stop
            </Button>
            {s.bot_number && owner && (
              <Button size="xs" variant="subtle" onClick={() => setUnlink(true)}>
                Unlink phone
              </Button>
            )}
          </>
        )}
        {owner && (
          <Button size="xs" color="red" variant="subtle" onClick={() => setConfirm(true)}>
            Delete
          </Button>
        )}
      </Group>
      <Modal opened={unlink} onClose={() => setUnlink(false)} title={`Unlink the phone from ${s.bot_name}?`}>
        <Text size="sm">
          WhatsApp removes this linked device and its saved credentials are deleted; to use {s.bot_name} again you scan a new QR code. Intents, surveys and
          messages stay.
        </Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={() => setUnlink(false)}>
            Cancel
          </Button>
          <Button color="red" onClick={() => run(async () => (setUnlink(false), await call('instances.logout', { instanceId: inst._id })))}>
            Unlink phone
          </Button>
        </Group>
      </Modal>
      <Modal opened={confirm} onClose={() => setConfirm(false)} title={`Delete ${s.bot_name}?`}>
        <Text size="sm">
          This logs out {s.bot_name} and deletes its intents, surveys, attachments and message log. This cannot be undone.
        </Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={() => setConfirm(false)}>
            Cancel
          </Button>
          <Button color="red" onClick={() => run(async () => (setConfirm(false), await call('instances.delete', { instanceId: inst._id })))}>
            Delete instance
          </Button>
        </Group>
      </Modal>
    </Card>
  )
}
