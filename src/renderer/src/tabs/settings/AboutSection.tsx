/**
 * Settings → About (docs/ui.md "Updates in the UI"): the version, updates (check now, what's new, download, "Restart to
 * update", the automatic download switch) and where the data lives. The status comes from the store,
 * kept live by the desktop updater's `update` events; the headless server shows why it has none.
 */
import { Alert, Button, Card, Group, Progress, Stack, Switch, Text, Title } from '@mantine/core'
import { useEffect, useRef } from 'react'
import type { UpdateStatusT } from '../../../../shared/operations/updates'
import { DataFolder } from '../../components/DataFolder'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'
import { call, useDesk } from '../../store'
import { blockersText, installWhenText, updateHeadline } from '../../update-text'

export function AboutSection() {
  const about = useDesk((s) => s.about)
  const info = useDesk((s) => s.info)
  const update = useDesk((s) => s.update)
  const card = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (window.location.hash !== '#about') return
    history.replaceState(null, '', window.location.pathname + window.location.search)
    card.current?.scrollIntoView({ block: 'start' })
  }, [])
  return (
    <Card withBorder component="section" id="about" aria-label="About Chatapp Desk" ref={card}>
      <Title order={5} mb="sm">
        About Chatapp Desk
      </Title>
      <Stack gap="md">
        <Text size="sm">
          Version <b data-testid="app-version">{about?.version ?? info?.version}</b> · {info?.mode === 'web' ? 'headless server (web UI)' : 'desktop app'}
        </Text>
        {update && (update.supported ? <Updates s={update} /> : <Text size="sm" c="dimmed">{update.reason}</Text>)}
        <Stack gap={4}>
          <Text fw={500} size="sm">
            Your data
          </Text>
          <DataFolder />
        </Stack>
      </Stack>
    </Card>
  )
}

function Updates({ s }: { s: UpdateStatusT }) {
  const action = useAction()
  const set = (status: UpdateStatusT) => useDesk.getState().setUpdate(status)
  const run = (fn: () => Promise<UpdateStatusT>) => void action.run(async () => set(await fn()))
  const busy = s.state === 'checking' || s.state === 'downloading' || s.state === 'installing'
  const asking = s.state === 'downloaded' && s.blockers.length > 0
  return (
    <Stack gap="sm" data-testid="updates" data-state={s.state}>
      <Text fw={500} size="sm">
        Updates
      </Text>
      <Text size="sm" role="status">
        {updateHeadline(s)}
      </Text>
      {s.state === 'downloading' && <Progress value={s.progress?.percent ?? 0} animated aria-label="Download progress" />}
      {s.state === 'error' && s.error && (
        <Alert color="orange" variant="light" p="xs">
          <Text size="sm">{s.error}</Text>
        </Alert>
      )}
      {s.available && (s.state === 'available' || s.state === 'downloading' || s.state === 'downloaded' || s.state === 'installing') && s.available.releaseNotes && (
        <Card withBorder bg="var(--mantine-color-gray-0)" p="sm">
          <Text fw={500} size="sm" mb={4}>
            What’s new in {s.available.version}
          </Text>
          {/* Plain text from the feed (never HTML): line breaks kept. */}
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="release-notes">
            {s.available.releaseNotes}
          </Text>
        </Card>
      )}
      {s.state === 'downloaded' && !asking && (
        <Text size="sm" c="dimmed">
          {installWhenText(s)}
        </Text>
      )}
      {asking && (
        <Alert color="yellow" variant="light" title="Restart now?" role="alert">
          <Text size="sm" mb="xs">
            Right now {blockersText(s.blockers)}. Restarting pauses it until the app is back, about a minute later; it then carries on. Messages being sent finish
            first.
          </Text>
          <Group gap="xs">
            <Button size="xs" color="yellow" onClick={() => run(() => call('updates.restart', { force: true }))} loading={action.busy}>
              Restart anyway
            </Button>
            <Button size="xs" variant="default" onClick={() => set({ ...s, blockers: [] })}>
              Later
            </Button>
          </Group>
        </Alert>
      )}
      <ErrorAlert error={action.error} />
      <Group gap="xs">
        {s.state === 'downloaded' && !asking && (
          <Button onClick={() => run(() => call('updates.restart', {}))} loading={action.busy}>
            Restart to update
          </Button>
        )}
        {(s.state === 'available' || (s.state === 'error' && s.available)) && (
          <Button onClick={() => run(() => call('updates.download', {}))} loading={action.busy}>
            Download {s.available?.version}
          </Button>
        )}
        <Button variant="default" onClick={() => run(() => call('updates.check', {}))} disabled={busy} loading={s.state === 'checking'}>
          Check for updates
        </Button>
      </Group>
      <Switch
        label="Download updates automatically"
        description={s.autoDownload ? 'New versions download in the background. ' + installWhenText(s) : 'You are told when a new version is out, and choose when to download it.'}
        checked={s.autoDownload}
        onChange={(e) => {
          const enabled = e.currentTarget.checked
          run(() => call('updates.setAutoDownload', { enabled }))
        }}
      />
      {s.feed && (
        <Text size="xs" c="dimmed">
          Updates come from {s.feed}
        </Text>
      )}
    </Stack>
  )
}
