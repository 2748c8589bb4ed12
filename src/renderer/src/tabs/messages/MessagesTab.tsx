/**
 * Messages: the chats of the selected instance and the conversation log of one (live), with the
 * composer (./Composer.tsx: one small form per send kind).
 */
import { Button, Card, EmptyState, Grid, Group, NavLink, ScrollArea, Stack, Text, TextInput, Title } from '@mantine/core'
import { useState } from 'react'
import { ChatLog } from '../../components/ChatLog'
import { FilesCard } from '../../components/FilesCard'
import { ErrorAlert } from '../../components/ErrorAlert'
import { NeedInstance } from '../../components/NeedInstance'
import { useContract } from '../../hooks'
import { useSelectedInstance } from '../../store'
import { Composer } from './Composer'
import { HandoffBar } from './HandoffBar'

export function MessagesTab() {
  const inst = useSelectedInstance()
  const id = inst?._id
  const chats = useContract('messages.chats', id ? { instanceId: id } : null, (e) => (e.type === 'message' || e.type === 'chatMerged') && e.instanceId === id)
  const [chatId, setChatId] = useState<string | null>(null)
  const [newChat, setNewChat] = useState('')
  if (!inst) return <NeedInstance />
  return (
    <Grid>
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Card withBorder>
          <Title order={5} mb="xs">
            Chats
          </Title>
          <form onSubmit={(e) => (e.preventDefault(), newChat.trim() && setChatId(newChat.trim()), setNewChat(''))}>
            <Group gap="xs" mb="sm" wrap="nowrap">
              <TextInput placeholder="Phone number or JID" value={newChat} onChange={(e) => setNewChat(e.currentTarget.value)} aria-label="New chat" style={{ flex: 1 }} data-testid="new-chat" />
              <Button type="submit" variant="light">
                Open
              </Button>
            </Group>
          </form>
          <ErrorAlert error={chats.error} />
          {chats.data?.length === 0 && <EmptyState size="sm" title="No messages yet" description="Open a chat with a number to send the first message." />}
          <ScrollArea h={380}>
            {chats.data?.map((c) => (
              <NavLink
                key={c.chatId}
                active={chatId === c.chatId}
                label={c.name ?? `+${c.chatId.split('@')[0]}`}
                description={c.lastText}
                rightSection={<Text size="xs">{c.count}</Text>}
                onClick={() => setChatId(c.chatId)}
              />
            ))}
          </ScrollArea>
        </Card>
        <FilesCard instanceId={inst._id} />
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 8 }}>
        {chatId ? (
          <Conversation key={chatId} instanceId={inst._id} chatId={chatId} connected={inst.settings.status === 'CONNECTED'} />
        ) : (
          <EmptyState title="Pick a chat" description="Choose a chat on the left or open one with a phone number." />
        )}
      </Grid.Col>
    </Grid>
  )
}

function Conversation({ instanceId, chatId, connected }: { instanceId: string; chatId: string; connected: boolean }) {
  const log = useContract('messages.list', { instanceId, chatId, limit: 200 }, (e) => (e.type === 'message' || e.type === 'status' || e.type === 'chatMerged') && e.instanceId === instanceId)
  return (
    <Stack>
      <Title order={5}>Conversation with {chatId.includes('@') ? chatId : `+${chatId.replace(/^\+/, '')}`}</Title>
      <HandoffBar instanceId={instanceId} chatId={chatId} />
      <ErrorAlert error={log.error} />
      <ChatLog messages={(log.data ?? [])} height={300} empty="No messages in this chat yet." testId="conversation" />
      {!connected && <Text c="orange">The instance is not connected; link it in Pairing before sending.</Text>}
      <Composer instanceId={instanceId} chatId={chatId} onSent={log.reload} />
    </Stack>
  )
}
