/**
 * Where the app keeps its data and how to back it up (docs/design.md §19 "First run": the first-run welcome and Settings →
 * About say it). Everything is in one folder, so a copy of it taken while the app is stopped is a
 * whole backup.
 */
import { Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core'
import { useDesk } from '../store'

export function DataFolder() {
  const dataDir = useDesk((s) => s.about?.dataDir ?? null)
  const web = useDesk((s) => s.info?.mode === 'web')
  return (
    <Stack gap="xs" data-testid="data-folder">
      <Text size="sm">Everything the app keeps (instances, WhatsApp links, messages, contacts, files) is in one folder:</Text>
      {dataDir ? (
        <Group gap="xs" wrap="nowrap" align="center">
          <Code style={{ overflowWrap: 'anywhere', flex: 1 }}>{dataDir}</Code>
          <CopyButton value={dataDir}>
            {({ copied, copy }) => (
              <Button size="compact-sm" variant="light" onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          (the folder set by CHATAPP_DATA_DIR)
        </Text>
      )}
      <Text size="sm" c="dimmed">
        To back it up, {web ? 'stop the server' : 'quit Chatapp Desk (tray icon → Quit)'}, then copy the whole folder to another disk or a USB stick; to restore, put it back
        before starting the app. It holds the keys of your linked phones: keep copies private.
      </Text>
    </Stack>
  )
}
