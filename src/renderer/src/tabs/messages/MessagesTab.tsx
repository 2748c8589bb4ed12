/**
 * The inbox (docs/design.md §15, docs/ui.md "The long history"): on the left either the conversations (./ConversationList.tsx)
 * or, while the search box holds words, the messages that contain them (./SearchResults.tsx), of the
 * picked instance or of every instance; on the right the open chat (./ChatView.tsx), at the picked
 * hit. On a phone the list and the chat take turns on the screen.
 */
import { Box, Button, Card, Checkbox, CloseButton, EmptyState, Grid, Group, Text, TextInput } from '@mantine/core'
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks'
import { useRef, useState } from 'react'
import type { Conversation, ContractEvent } from '../../../../shared/contract'
import { CardHeader } from '../../components/CardHeader'
import { FilesCard } from '../../components/FilesCard'
import { NeedInstance } from '../../components/NeedInstance'
import { SearchIcon } from '../../components/SearchIcon'
import { useContract } from '../../hooks'
import { initialAssignedFilter, type AssignedFilter } from '../../access'
import { useDesk, useMayCall, useSelectedInstance } from '../../store'
import { ChatView, type OpenChat } from './ChatView'
import { ConversationList, inboxQuery, type ConversationFilter } from './ConversationList'
import { QuickRepliesCard } from './QuickRepliesCard'
import { InstanceAssistantSummary } from '../assistant/AssistantSummary'
import { SearchResults } from './SearchResults'
import type { SearchHit } from './search-merge'
import { useMessageSearch } from './use-message-search'
import { instanceTag } from '../../instance-label'

const inboxEvent = (e: ContractEvent) =>
  e.type === 'message' || e.type === 'history' || e.type === 'assignment' || e.type === 'chatMerged' || e.type === 'chatStatus' || e.type === 'handoff' || e.type === 'status' || e.type === 'messageChanged' || (e.type === 'changed' && e.what === 'contacts')

/** A hit as the chat holds it: the log entry without the search's snippet. */
function entryOf({ instanceId: _i, snippet: _s, highlights: _h, ...m }: SearchHit): NonNullable<OpenChat['anchor']> {
  return m
}

export function MessagesTab() {
  const inst = useSelectedInstance()
  const instances = useDesk((s) => s.instances)
  const [everyInstance, setEveryInstance] = useState(true)
  const [filter, setFilter] = useState<ConversationFilter>('open')
  const [assigned, setAssigned] = useState<AssignedFilter>(() => initialAssignedFilter(localStorage.getItem('chatapp.assigned')))
  const pickAssigned = (a: AssignedFilter) => (localStorage.setItem('chatapp.assigned', a), setAssigned(a))
  // Managing quick replies and files is for whoever sets the bot up; an agent still inserts quick replies.
  const manageReplies = useMayCall('quickReplies.create')
  const files = useMayCall('attachments.list')
  // An agent has no Settings tab: how the assistant answers their customers is shown here, read-only.
  const assistantReadOnly = useMayCall('assistant.get') && !useMayCall('assistant.update')
  const [chatFilter, setChatFilter] = useState('')
  const [searchText, setSearchText] = useState('')
  const [query] = useDebouncedValue(searchText.trim(), 300)
  const [open, setOpen] = useState<OpenChat | null>(null)
  const jumps = useRef(0)
  const phone = useMediaQuery('(max-width: 62em)')
  const every = everyInstance && instances.length > 1
  const list = useContract('inbox.list', { ...(every || !inst ? {} : { instance_id: inst._id }), ...inboxQuery(filter, chatFilter), assigned }, inboxEvent)
  const search = useMessageSearch(every ? instances.map((i) => i._id) : inst ? [inst._id] : [], query)
  const listed = open ? list.data?.find((c) => c.instance_id === open.instanceId && c.chatId === open.chatId) : undefined
  // A chat opened from a search hit may be outside the list's filter: fetched on its own.
  const lookedUp = useContract('inbox.get', open && !listed ? { instanceId: open.instanceId, chatId: open.chatId } : null, inboxEvent)
  if (!inst) return <NeedInstance />
  // Two instances of one name are told apart by their numbers.
  const nameOf = (id: string) => {
    const i = instances.find((x) => x._id === id)
    return i ? instanceTag(i, instances) : id.slice(-6)
  }
  const conversation: Conversation | null = listed ?? (open && lookedUp.data?.instance_id === open.instanceId && lookedUp.data.chatId === open.chatId ? lookedUp.data : null)
  const searching = searchText.trim() !== ''
  const showList = !phone || !open
  const showChat = !phone || !!open
  const reload = async () => void (await Promise.all([list.reload(), lookedUp.reload()]))
  return (
    <Grid>
      {showList && (
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Card withBorder data-testid="inbox" data-mode={searching ? 'search' : 'conversations'}>
            <CardHeader title="Inbox">
              {instances.length > 1 && <Checkbox size="xs" label="Every instance" checked={everyInstance} onChange={(e) => setEveryInstance(e.currentTarget.checked)} />}
            </CardHeader>
            <TextInput
              placeholder="Search messages, names, numbers"
              value={searchText}
              onChange={(e) => setSearchText(e.currentTarget.value)}
              aria-label="Search messages"
              type="search"
              leftSection={<SearchIcon />}
              rightSection={searching ? <CloseButton size="sm" aria-label="Clear the search" onClick={() => setSearchText('')} /> : null}
              mb="xs"
            />
            {searching ? (
              <>
                <Group justify="space-between" wrap="nowrap" gap="xs" mb="xs">
                  <Text size="xs" c="dimmed" style={{ minWidth: 0 }} data-testid="search-scope">
                    Messages containing “{searchText.trim()}” {every ? 'in every instance' : `in ${inst.settings.bot_name}`}
                  </Text>
                  <Button size="compact-xs" variant="light" style={{ flex: 'none' }} onClick={() => setSearchText('')}>
                    Back to chats
                  </Button>
                </Group>
                <SearchResults
                  search={search}
                  query={query}
                  activeKey={open?.anchor ? `${open.instanceId}:${open.anchor.id}` : null}
                  instanceName={every ? nameOf : null}
                  onOpen={(hit) => setOpen({ instanceId: hit.instanceId, chatId: hit.chatId, anchor: entryOf(hit), jump: ++jumps.current })}
                  phone={!!phone}
                  typing={searchText.trim() !== query}
                />
              </>
            ) : (
              <ConversationList
                list={list}
                filter={filter}
                onFilter={setFilter}
                assigned={assigned}
                onAssigned={pickAssigned}
                q={chatFilter}
                onQ={setChatFilter}
                isOpen={(c) => open?.instanceId === c.instance_id && open.chatId === c.chatId}
                instanceName={every ? nameOf : null}
                onOpen={(c) => setOpen({ instanceId: c.instance_id, chatId: c.chatId })}
                onNewChat={(chatId) => setOpen({ instanceId: inst._id, chatId })}
                phone={!!phone}
              />
            )}
          </Card>
          {!phone && manageReplies && <QuickRepliesCard />}
          {!phone && files && <FilesCard instanceId={inst._id} />}
          {!phone && assistantReadOnly && (
            <Box mt="md">
              <InstanceAssistantSummary instanceId={inst._id} />
            </Box>
          )}
        </Grid.Col>
      )}
      {showChat && (
        <Grid.Col span={{ base: 12, md: 8 }}>
          {open ? (
            <ChatView
              key={`${open.instanceId}:${open.chatId}:${open.anchor?.id ?? ''}:${open.jump ?? ''}`}
              chat={open}
              conversation={conversation}
              instanceName={instances.length > 1 ? nameOf(open.instanceId) : null}
              connected={instances.find((i) => i._id === open.instanceId)?.settings.status === 'CONNECTED'}
              onBack={phone ? () => setOpen(null) : undefined}
              onChanged={reload}
              onErased={() => (setOpen(null), void list.reload(), search.refresh())}
            />
          ) : (
            <EmptyState title="Pick a chat" description={searching ? 'Pick a message on the left to open its chat at that message.' : 'Choose a conversation on the left or open one with a phone number.'} />
          )}
        </Grid.Col>
      )}
    </Grid>
  )
}
