/**
 * The first-run welcome (docs/design.md §19 "First run"): after a fresh install the app opens on the Instances tab with no
 * instance, and this says what the app does and walks the first steps — create the first instance,
 * link a phone by QR or code, try the Test chat — then where the data lives and how to back it up.
 * It shows while there is no instance, until the owner hides it (remembered in this browser/window).
 */
import { Badge, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import type { TabProps } from '../tabs/tab-props'
import { useAction } from '../hooks'
import { call, useDesk } from '../store'
import { DataFolder } from './DataFolder'
import { ErrorAlert } from './ErrorAlert'

export const WELCOME_HIDDEN_KEY = 'chatapp.welcomeHidden'

function Step({ n, title, children, action }: { n: number; title: string; children: ReactNode; action?: ReactNode }) {
  return (
    <Card withBorder padding="md">
      <Stack gap="xs" h="100%">
        <Group gap="xs" wrap="nowrap">
          <Badge circle size="lg" variant="filled">
            {n}
          </Badge>
          <Text fw={600}>{title}</Text>
        </Group>
        <Text size="sm" c="dimmed" style={{ flex: 1 }}>
          {children}
        </Text>
        {action}
      </Stack>
    </Card>
  )
}

export function Welcome({ goTo, onHide }: TabProps & { onHide(): void }) {
  const action = useAction()
  const open = async (instanceId: string, tab: 'pairing' | 'testchat') => {
    await useDesk.getState().refreshInstances()
    useDesk.getState().select(instanceId)
    goTo(tab)
  }
  const createWhatsApp = () =>
    action.run(async () => {
      const inst = await call('instances.create', { channel: 'baileys' })
      await open(inst._id, 'pairing')
    })
  // A sandbox bot, linked at once: the Test chat works without a phone.
  const trySandbox = () =>
    action.run(async () => {
      const inst = await call('instances.create', { channel: 'sandbox', name: 'Test bot' })
      await call('instances.init', { instanceId: inst._id })
      await call('pairing.sandboxScan', { instanceId: inst._id })
      await open(inst._id, 'testchat')
    })
  return (
    <Card withBorder padding="lg" data-testid="welcome">
      <Stack gap="md">
        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            No instances yet
          </Text>
          <Title order={3}>Welcome to Chatapp Desk</Title>
        </Stack>
        <Text>
          Chatapp Desk runs WhatsApp bots on this computer. Each <b>instance</b> is one phone number: it answers customers by itself from your keywords (intents)
          and questionnaires (surveys), sends broadcasts at a safe pace, and hands a chat to you in the Inbox when a person is needed. Your own scripts can drive
          it through the local API.
        </Text>
        <SimpleGrid cols={{ base: 1, md: 3 }}>
          <Step
            n={1}
            title="Create your first instance"
            action={
              <Button onClick={createWhatsApp} loading={action.busy}>
                Create a WhatsApp instance
              </Button>
            }
          >
            One instance per phone number. You can name it and add more later in this tab.
          </Step>
          <Step n={2} title="Link a phone by QR or code">
            On the phone: WhatsApp → Settings → Linked devices → Link a device, then scan the QR code the Pairing tab shows. Or choose “Link with phone number
            instead” and type the code the app gives you.
          </Step>
          <Step
            n={3}
            title="Try the Test chat"
            action={
              <Button variant="light" onClick={trySandbox} loading={action.busy}>
                Try a sandbox bot
              </Button>
            }
          >
            A sandbox instance needs no phone: write to your bot as a customer would and watch it answer, before you link a real number.
          </Step>
        </SimpleGrid>
        <ErrorAlert error={action.error} />
        <Stack gap={4}>
          <Text fw={500} size="sm">
            Where your data lives
          </Text>
          <DataFolder />
        </Stack>
        <Group justify="flex-end">
          <Button variant="subtle" color="gray" onClick={onHide}>
            Hide this welcome
          </Button>
        </Group>
      </Stack>
    </Card>
  )
}
