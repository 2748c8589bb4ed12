/**
 * Test chat: talk to a sandbox instance as a customer and see the bot answer live. The customer's
 * messages go in through `sandbox.inbound` (exactly as a real inbound message); replies arrive as
 * `message` events and show in the same conversation.
 */
import { Alert, Badge, Button, Card, Group, List, Stack, Text, TextInput, Title } from '@mantine/core'
import { useState } from 'react'
import type { BotActivity } from '../../../shared/schemas/records'
import { ChatLog } from '../components/ChatLog'
import { ErrorAlert } from '../components/ErrorAlert'
import { NeedInstance } from '../components/NeedInstance'
import { useAction, useContract } from '../hooks'
import { call, useSelectedInstance } from '../store'

/** The pretend customer's number; any sandbox chat id works. */
const DEFAULT_CUSTOMER = '15550100001'

export function TestChatTab() {
  const inst = useSelectedInstance()
  const [customer, setCustomer] = useState(DEFAULT_CUSTOMER)
  const [name, setName] = useState('Test customer')
  const [text, setText] = useState('')
  const send = useAction()
  const chatId = `${customer.replace(/\D/g, '')}@s.whatsapp.net`
  const id = inst?._id
  const log = useContract('messages.list', id ? { instanceId: id, chatId, limit: 200 } : null, (e) => ((e.type === 'message' || e.type === 'status' || e.type === 'messageChanged') && e.instanceId === id && e.message.chatId === chatId) || (e.type === 'activity' && e.instanceId === id && e.entry.chatId === chatId))
  if (!inst) return <NeedInstance />
  if (inst.settings.channel !== 'sandbox') {
    return <Alert title="Sandbox only">Test chat talks to sandbox instances. Create a sandbox instance in the Instances tab to try your bot without a phone.</Alert>
  }
  const connected = inst.settings.status === 'CONNECTED'
  const submit = (e: React.FormEvent) => {
    e.preventDefault()
    const message = text.trim()
    if (!message) return
    void send.run(async () => {
      await call('sandbox.inbound', { instanceId: inst._id, chatId, message, pushName: name || undefined })
      setText('')
      await log.reload()
    })
  }
  return (
    <Stack maw={760}>
      <Title order={4}>Test chat with {inst.settings.bot_name}</Title>
      {!connected && <Alert color="orange">The sandbox instance is not connected. Pair it in the Pairing tab (Init, then Simulate phone scan).</Alert>}
      <Card withBorder>
        <Group mb="sm">
          <TextInput label="You are" value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <TextInput label="Your number" value={customer} onChange={(e) => setCustomer(e.currentTarget.value)} />
        </Group>
        <ChatLog messages={(log.data ?? [])} height={360} empty="Say hello to your bot." testId="test-chat-log" />
        <form onSubmit={submit}>
          <Group mt="sm" wrap="nowrap">
            <TextInput placeholder="Type a message as the customer" value={text} onChange={(e) => setText(e.currentTarget.value)} style={{ flex: 1 }} disabled={!connected} aria-label="Customer message" data-testid="test-chat-input" />
            <Button type="submit" loading={send.busy} disabled={!connected || !text.trim()}>
              Send
            </Button>
          </Group>
        </form>
        <ErrorAlert error={send.error} title="Not delivered" />
        <Text size="xs" c="dimmed" mt="xs">
          Messages go through the same path as real ones: message log, bot, webhooks.
        </Text>
      </Card>
      <BotActivityCard instanceId={inst._id} />
    </Stack>
  )
}

const ACTION_LABELS: Record<string, string> = {
  send_location: 'Location',
  send_contact: 'Contact card',
  send_photo: 'Photo',
  send_file: 'File',
  send_notification: 'Notification',
  add_to_group: 'Add to group',
  start_survey: 'Start survey'
}

/** The bot's recent actions with the outcome of each, so a failing action is visible at once. */
function BotActivityCard({ instanceId }: { instanceId: string }) {
  const activity = useContract('bot.activity', { instanceId }, (e) => e.type === 'activity' && e.instanceId === instanceId)
  const entries = ((activity.data ?? []) as BotActivity[]).slice(-10).reverse()
  return (
    <Card withBorder data-testid="bot-activity">
      <Title order={5} mb="xs">
        Bot actions
      </Title>
      {entries.length === 0 ? (
        <Text size="sm" c="dimmed">
          Actions of matched intents and survey steps show here, with any error.
        </Text>
      ) : (
        <Stack gap="xs">
          {entries.map((a) => (
            <div key={`${a.messageId}-${a.at}`}>
              <Text size="sm">
                {a.matched} · {new Date(a.at).toLocaleTimeString()}
              </Text>
              <List size="sm" spacing={2}>
                {a.actions.map((o) => (
                  <List.Item key={o.action}>
                    <Badge size="xs" color={o.ok ? 'teal' : 'red'} mr={6}>
                      {o.ok ? 'ok' : 'failed'}
                    </Badge>
                    {ACTION_LABELS[o.action] ?? o.action}
                    {o.error ? `: ${o.error}` : ''}
                  </List.Item>
                ))}
              </List>
            </div>
          ))}
        </Stack>
      )}
    </Card>
  )
}
