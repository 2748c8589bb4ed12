/**
 * Messages: the chats of the selected instance and the conversation log of one (live), and a composer
 * for every send kind: text, image, video, audio, document (attachment pickers), a file by URL,
 * location, contact, buttons, list and an image with buttons (builders).
 */
import { ActionIcon, Button, Card, Chip, EmptyState, Grid, Group, NavLink, ScrollArea, Select, SimpleGrid, Stack, Switch, Text, TextInput, Textarea, Title } from '@mantine/core'
import { useState } from 'react'
import { AttachmentPicker } from '../components/AttachmentPicker'
import { ChatLog } from '../components/ChatLog'
import { FilesCard } from '../components/FilesCard'
import { ErrorAlert, fieldError } from '../components/ErrorAlert'
import { NeedInstance } from '../components/NeedInstance'
import { useAction, useContract } from '../hooks'
import { call, useSelectedInstance } from '../store'

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
      <ErrorAlert error={log.error} />
      <ChatLog messages={(log.data ?? [])} height={300} empty="No messages in this chat yet." testId="conversation" />
      {!connected && <Text c="orange">The instance is not connected; link it in Pairing before sending.</Text>}
      <Composer instanceId={instanceId} chatId={chatId} onSent={log.reload} />
    </Stack>
  )
}

const KINDS = ['text', 'image', 'video', 'audio', 'document', 'fileUrl', 'location', 'contact', 'buttons', 'list', 'mediaButtons'] as const
type Kind = (typeof KINDS)[number]
const KIND_LABELS: Record<Kind, string> = {
  text: 'Text',
  image: 'Image',
  video: 'Video',
  audio: 'Audio',
  document: 'Document',
  fileUrl: 'File URL',
  location: 'Location',
  contact: 'Contact',
  buttons: 'Buttons',
  list: 'List',
  mediaButtons: 'Image + buttons'
}
type UrlType = 'image' | 'video' | 'audio' | 'document'
type ButtonRow = { type: 'replyButton' | 'urlButton' | 'callButton'; title: string; payload: string }
type Section = { title: string; rows: Array<{ title: string; description: string }> }

function Composer({ instanceId, chatId, onSent }: { instanceId: string; chatId: string; onSent(): Promise<void> }) {
  const [kind, setKind] = useState<Kind>('text')
  const [text, setText] = useState('')
  const [attachmentId, setAttachmentId] = useState<string | null>(null)
  const [voiceNote, setVoiceNote] = useState(false)
  const [url, setUrl] = useState('')
  const [urlType, setUrlType] = useState<UrlType>('image')
  const [loc, setLoc] = useState({ lat: '', lng: '', name: '' })
  const [contact, setContact] = useState({ fullName: '', phoneNumber: '', organization: '' })
  const [footer, setFooter] = useState('')
  const [buttons, setButtons] = useState<ButtonRow[]>([{ type: 'replyButton', title: '', payload: '' }])
  const [sections, setSections] = useState<Section[]>([{ title: '', rows: [{ title: '', description: '' }] }])
  const send = useAction()
  const base = { instanceId, chatId }
  const submit = (e: React.FormEvent) => {
    e.preventDefault()
    void send.run(async () => {
      switch (kind) {
        case 'text':
          await call('messages.sendText', { ...base, message: text })
          break
        case 'image':
        case 'video':
        case 'audio':
        case 'document':
          if (!attachmentId) throw new Error('Pick or upload a file first.')
          await call('messages.sendMedia', { ...base, kind, attachmentId, ...(text && kind !== 'audio' ? { caption: text } : {}), ...(kind === 'audio' ? { voiceNote } : {}) })
          break
        case 'location':
          await call('messages.sendText', { ...base, location: { lat: loc.lat, lng: loc.lng, ...(loc.name ? { name: loc.name } : {}) } })
          break
        case 'contact':
          await call('messages.sendContact', { ...base, vcard: { fullName: contact.fullName, phoneNumber: contact.phoneNumber, ...(contact.organization ? { organization: contact.organization } : {}) } })
          break
        case 'fileUrl':
          await call('messages.sendFileUrl', { ...base, url, type: urlType, ...(text ? { caption: text } : {}) })
          break
        case 'buttons':
        case 'mediaButtons': {
          const btndata = { text, ...(footer ? { footerText: footer } : {}), buttons: buttons.map((b) => ({ type: b.type, title: b.title, ...(b.payload ? { payload: b.payload } : {}) })) }
          if (kind === 'buttons') await call('messages.sendButtons', { ...base, btndata })
          else await call('messages.sendMediaButtons', { ...base, btndata: { ...btndata, image: url, mediaType: 'image' as const } })
          break
        }
        case 'list':
          await call('messages.sendList', {
            ...base,
            msgdata: {
              text,
              sections: sections.map((s) => ({ ...(s.title ? { title: s.title } : {}), rows: s.rows.map((r) => ({ title: r.title, ...(r.description ? { description: r.description } : {}) })) }))
            }
          })
          break
      }
      setText('')
      await onSent()
    })
  }
  const err = (f: string) => fieldError(send.error, f)
  return (
    <Card withBorder component="form" onSubmit={submit} aria-label="Compose">
      <Stack gap="sm">
        <Chip.Group multiple={false} value={kind} onChange={(v) => setKind(v)}>
          <Group gap={6} data-testid="send-kind" role="radiogroup" aria-label="Message kind">
            {KINDS.map((k) => (
              <Chip key={k} value={k} size="sm" radius="sm">
                {KIND_LABELS[k]}
              </Chip>
            ))}
          </Group>
        </Chip.Group>
        {(kind === 'image' || kind === 'video' || kind === 'audio' || kind === 'document') && (
          <AttachmentPicker instanceId={instanceId} label={`${kind[0]!.toUpperCase() + kind.slice(1)} file`} imagesOnly={kind === 'image'} value={attachmentId} onChange={setAttachmentId} error={err('attachmentId')} testId="media-picker" />
        )}
        {(kind === 'fileUrl' || kind === 'mediaButtons') && (
          <Group gap="xs" align="flex-start" wrap="nowrap">
            <TextInput
              label={kind === 'fileUrl' ? 'File URL' : 'Image URL'}
              placeholder="https://…"
              value={url}
              onChange={(e) => setUrl(e.currentTarget.value)}
              error={err('url') ?? err('btndata.image')}
              style={{ flex: 1 }}
              data-testid="compose-url"
            />
            {kind === 'fileUrl' && (
              <Select
                label="Send as"
                w={150}
                allowDeselect={false}
                value={urlType}
                onChange={(v) => setUrlType(v as UrlType)}
                data={[
                  { value: 'image', label: 'Image' },
                  { value: 'video', label: 'Video' },
                  { value: 'audio', label: 'Audio' },
                  { value: 'document', label: 'Document' }
                ]}
              />
            )}
          </Group>
        )}
        {kind === 'audio' && <Switch label="Send as voice note" checked={voiceNote} onChange={(e) => setVoiceNote(e.currentTarget.checked)} />}
        {kind === 'location' && (
          <SimpleGrid cols={3}>
            <TextInput label="Latitude" value={loc.lat} onChange={(e) => setLoc({ ...loc, lat: e.currentTarget.value })} error={err('location.lat')} />
            <TextInput label="Longitude" value={loc.lng} onChange={(e) => setLoc({ ...loc, lng: e.currentTarget.value })} error={err('location.lng')} />
            <TextInput label="Name" value={loc.name} onChange={(e) => setLoc({ ...loc, name: e.currentTarget.value })} />
          </SimpleGrid>
        )}
        {kind === 'contact' && (
          <SimpleGrid cols={3}>
            <TextInput label="Full name" value={contact.fullName} onChange={(e) => setContact({ ...contact, fullName: e.currentTarget.value })} error={err('vcard.fullName')} />
            <TextInput label="Phone number" value={contact.phoneNumber} onChange={(e) => setContact({ ...contact, phoneNumber: e.currentTarget.value })} error={err('vcard.phoneNumber')} />
            <TextInput label="Organization" value={contact.organization} onChange={(e) => setContact({ ...contact, organization: e.currentTarget.value })} />
          </SimpleGrid>
        )}
        {kind !== 'location' && kind !== 'contact' && kind !== 'audio' && (
          <Textarea
            label={kind === 'text' ? 'Message' : kind === 'buttons' || kind === 'list' || kind === 'mediaButtons' ? 'Body text' : 'Caption'}
            autosize
            minRows={2}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            error={err('message') ?? err('btndata.text') ?? err('msgdata.text') ?? err('caption')}
            data-testid="compose-text"
          />
        )}
        {(kind === 'buttons' || kind === 'mediaButtons') && (
          <Stack gap={6}>
            {buttons.map((b, i) => (
              <Group key={i} gap="xs" wrap="nowrap">
                <Select
                  aria-label="Button type"
                  w={140}
                  value={b.type}
                  allowDeselect={false}
                  data={[
                    { value: 'replyButton', label: 'Reply' },
                    { value: 'urlButton', label: 'Link' },
                    { value: 'callButton', label: 'Call' }
                  ]}
                  onChange={(v) => setButtons(buttons.map((x, j) => (j === i ? { ...x, type: v as ButtonRow['type'] } : x)))}
                />
                <TextInput aria-label="Button title" placeholder="Title" value={b.title} onChange={(e) => setButtons(buttons.map((x, j) => (j === i ? { ...x, title: e.currentTarget.value } : x)))} error={err(`btndata.buttons.${i}.title`)} style={{ flex: 1 }} />
                <TextInput
                  aria-label="Button payload"
                  placeholder={b.type === 'urlButton' ? 'https://…' : b.type === 'callButton' ? '+1555…' : 'payload (optional)'}
                  value={b.payload}
                  onChange={(e) => setButtons(buttons.map((x, j) => (j === i ? { ...x, payload: e.currentTarget.value } : x)))}
                  style={{ flex: 1 }}
                />
                <ActionIcon variant="subtle" color="red" aria-label="Remove button" disabled={buttons.length === 1} onClick={() => setButtons(buttons.filter((_, j) => j !== i))}>
                  ×
                </ActionIcon>
              </Group>
            ))}
            <Group>
              <Button size="xs" variant="default" disabled={buttons.length >= 10} onClick={() => setButtons([...buttons, { type: 'replyButton', title: '', payload: '' }])}>
                Add button
              </Button>
              <TextInput size="xs" placeholder="Footer (optional)" value={footer} onChange={(e) => setFooter(e.currentTarget.value)} aria-label="Footer" />
            </Group>
          </Stack>
        )}
        {kind === 'list' && (
          <Stack gap="xs">
            {sections.map((s, i) => (
              <Card key={i} withBorder p="xs">
                <Group gap="xs" mb={6}>
                  <TextInput size="xs" placeholder="Section title" aria-label="Section title" value={s.title} onChange={(e) => setSections(sections.map((x, j) => (j === i ? { ...x, title: e.currentTarget.value } : x)))} />
                  <Button size="compact-xs" variant="subtle" color="red" disabled={sections.length === 1} onClick={() => setSections(sections.filter((_, j) => j !== i))}>
                    Remove section
                  </Button>
                </Group>
                {s.rows.map((r, k) => (
                  <Group key={k} gap="xs" mb={4} wrap="nowrap">
                    <TextInput
                      size="xs"
                      placeholder="Row title"
                      aria-label="Row title"
                      value={r.title}
                      error={err(`msgdata.sections.${i}.rows.${k}.title`)}
                      onChange={(e) => setSections(sections.map((x, j) => (j === i ? { ...x, rows: x.rows.map((y, l) => (l === k ? { ...y, title: e.currentTarget.value } : y)) } : x)))}
                      style={{ flex: 1 }}
                    />
                    <TextInput
                      size="xs"
                      placeholder="Description"
                      aria-label="Row description"
                      value={r.description}
                      onChange={(e) => setSections(sections.map((x, j) => (j === i ? { ...x, rows: x.rows.map((y, l) => (l === k ? { ...y, description: e.currentTarget.value } : y)) } : x)))}
                      style={{ flex: 1 }}
                    />
                    <ActionIcon size="sm" variant="subtle" color="red" aria-label="Remove row" disabled={s.rows.length === 1} onClick={() => setSections(sections.map((x, j) => (j === i ? { ...x, rows: x.rows.filter((_, l) => l !== k) } : x)))}>
                      ×
                    </ActionIcon>
                  </Group>
                ))}
                <Button size="compact-xs" variant="default" onClick={() => setSections(sections.map((x, j) => (j === i ? { ...x, rows: [...x.rows, { title: '', description: '' }] } : x)))}>
                  Add row
                </Button>
              </Card>
            ))}
            <Button size="xs" variant="default" w={140} disabled={sections.length >= 10} onClick={() => setSections([...sections, { title: '', rows: [{ title: '', description: '' }] }])}>
              Add section
            </Button>
          </Stack>
        )}
        <ErrorAlert error={send.error} title="Not sent" />
        <Group justify="flex-end">
          <Button type="submit" loading={send.busy}>
            Send {kind}
          </Button>
        </Group>
      </Stack>
    </Card>
  )
}
