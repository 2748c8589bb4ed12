/**
 * The app shell: picks the transport (the preload's IPC bridge inside Electron, else HTTP with a
 * login), then shows the header (instance picker, live status) and the tabs.
 */
import { AppShell, Button, Center, Group, Loader, Select, Tabs, Text, Title } from '@mantine/core'
import { useEffect, useMemo, useState } from 'react'
import { openingTab, visibleTabs } from './access'
import { AccountMenu } from './components/AccountMenu'
import { Login, TOKEN_KEY } from './Login'
import { call, useDesk, useSelectedInstance } from './store'
import { createHttpClient, exchangeLoginCode } from './transport/http-client'
import { createIpcClient, preloadBridge } from './transport/ipc-client'
import { ErrorAlert } from './components/ErrorAlert'
import { StatusBadge } from './components/StatusBadge'
import { ConnectionBanner } from './components/ConnectionBanner'
import { confirmLeave } from './unsaved'
import { InstancesTab } from './tabs/InstancesTab'
import { PairingTab } from './tabs/PairingTab'
import { SettingsTab } from './tabs/settings/SettingsTab'
import { IntentsTab } from './tabs/IntentsTab'
import { SurveysTab } from './tabs/SurveysTab'
import { MessagesTab } from './tabs/messages/MessagesTab'
import { TestChatTab } from './tabs/TestChatTab'
import { ContactsTab } from './tabs/contacts/ContactsTab'
import { OutreachTab } from './tabs/outreach/OutreachTab'
import { ApiTab } from './tabs/ApiTab'
import { PeopleTab } from './tabs/people/PeopleTab'
import type { TabId } from './tabs/tab-props'

const TABS = [
  ['instances', 'Instances', InstancesTab],
  ['pairing', 'Pairing', PairingTab],
  ['settings', 'Settings', SettingsTab],
  ['intents', 'Intents', IntentsTab],
  ['surveys', 'Surveys', SurveysTab],
  ['messages', 'Inbox', MessagesTab],
  ['contacts', 'Contacts', ContactsTab],
  ['outreach', 'Broadcasts', OutreachTab],
  ['testchat', 'Test chat', TestChatTab],
  ['api', 'API', ApiTab],
  ['people', 'People', PeopleTab]
] as const satisfies ReadonlyArray<readonly [TabId, string, unknown]>

/** The one-time code of a `/#login=…` link (printed by `npm run serve`) or `/#invite=…` link, removed from the address bar. */
function codeFromFragment(name: 'login' | 'invite'): string | null {
  const m = new RegExp(`[#&]${name}=([^&]+)`).exec(window.location.hash)
  if (!m) return null
  history.replaceState(null, '', window.location.pathname)
  return decodeURIComponent(m[1]!)
}

export function App() {
  const bridge = preloadBridge()
  const [token, setToken] = useState<string | null>(() => (bridge ? null : sessionStorage.getItem(TOKEN_KEY)))
  const [loginCode] = useState(() => (bridge ? null : codeFromFragment('login')))
  const [inviteCode, setInviteCode] = useState(() => (bridge ? null : codeFromFragment('invite')))
  const [error, setError] = useState<unknown>()
  const client = useDesk((s) => s.client)
  const connect = useDesk((s) => s.connect)

  useEffect(() => {
    if (!loginCode || token) return
    exchangeLoginCode(loginCode)
      .then((t) => {
        sessionStorage.setItem(TOKEN_KEY, t)
        setToken(t)
      })
      .catch(setError)
  }, [loginCode, token])

  useEffect(() => {
    if (!bridge && !token) return
    const c = bridge ? createIpcClient(bridge) : createHttpClient(token!)
    connect(c).catch((err) => {
      setError(err)
      if (!bridge) {
        sessionStorage.removeItem(TOKEN_KEY)
        setToken(null)
      }
    })
  }, [bridge, token, connect])

  if (!bridge && !token) {
    return (
      <Login
        error={error}
        inviteCode={inviteCode}
        onToken={(t) => {
          // The invite is used: signing out later shows the sign-in form, not the invite again.
          setInviteCode(null)
          sessionStorage.setItem(TOKEN_KEY, t)
          setError(undefined)
          setToken(t)
        }}
      />
    )
  }
  if (error && !client) return <ErrorAlert error={error} title="Could not reach the app" />
  if (!client) {
    return (
      <Center mih="100vh">
        <Loader />
      </Center>
    )
  }
  const signOut = async (everywhere: boolean) => {
    // The session ends on the server first; the page forgets the token whatever it answered.
    await call('auth.logout', everywhere ? { everywhere } : {}).catch(() => undefined)
    sessionStorage.removeItem(TOKEN_KEY)
    useDesk.getState().disconnect()
    setToken(null)
  }
  return <Desk onSignOut={bridge ? undefined : signOut} />
}

const TAB_ORDER = TABS.map(([id]) => id)

function Desk({ onSignOut }: { onSignOut?: (everywhere: boolean) => Promise<void> }) {
  const me = useDesk((s) => s.me)
  // Only the tabs this person may use (an agent: Inbox and Contacts); the server refuses the rest anyway.
  const shown = useMemo(() => visibleTabs(me, TAB_ORDER), [me])
  const [wanted, setTab] = useState<TabId | null>(() => localStorage.getItem('chatapp.tab') as TabId | null)
  const tab = openingTab(wanted, shown)
  const instances = useDesk((s) => s.instances)
  const selectedId = useDesk((s) => s.selectedId)
  const select = useDesk((s) => s.select)
  const selected = useSelectedInstance()
  const updateReady = useDesk((s) => s.update?.state === 'downloaded')
  const change = (v: string | null) => {
    if (!confirmLeave()) return
    const t = (v ?? 'instances') as TabId
    localStorage.setItem('chatapp.tab', t)
    setTab(t)
  }
  return (
    <AppShell header={{ height: 60 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          {/* On a phone the instance picker and its status need the room. */}
          <Title order={3} visibleFrom="sm">
            Chatapp Desk
          </Title>
          <Group gap="xs" wrap="nowrap" ml="auto">
            <Select
              aria-label="Instance"
              placeholder={instances.length ? 'Pick an instance' : 'No instances yet'}
              data={instances.map((i) => ({ value: i._id, label: `${i.settings.bot_name} · ${i.settings.bot_number ?? i._id.slice(-6)}` }))}
              value={selectedId}
              onChange={(id) => confirmLeave() && select(id)}
              w={{ base: 150, sm: 280 }}
              data-testid="instance-picker"
            />
            {selected && <StatusBadge status={selected.settings.status} />}
            {updateReady && (
              <Button
                variant="light"
                size="compact-sm"
                // A phone's header has room for the instance picker and its status only; About says it there.
                visibleFrom="sm"
                onClick={() => {
                  if (tab === 'settings') return document.getElementById('about')?.scrollIntoView({ block: 'start' })
                  // Settings → About scrolls itself into view when it opens with #about in the address.
                  history.replaceState(null, '', '#about')
                  change('settings')
                }}
              >
                Update ready
              </Button>
            )}
            {onSignOut && me && <AccountMenu me={me} onSignOut={onSignOut} />}
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <ConnectionBanner onPair={(id) => (select(id), change('pairing'))} />
        <Tabs value={tab} onChange={change} keepMounted={false}>
          {/* One row that scrolls sideways on a narrow screen, instead of widening the page. */}
          <Tabs.List mb="md" style={{ flexWrap: 'nowrap', overflowX: 'auto', overflowY: 'hidden' }}>
            {TABS.filter(([id]) => shown.includes(id)).map(([id, label]) => (
              <Tabs.Tab key={id} value={id}>
                {label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {TABS.filter(([id]) => shown.includes(id)).map(([id, , Panel]) => (
            <Tabs.Panel key={id} value={id}>
              <Panel goTo={change} />
            </Tabs.Panel>
          ))}
        </Tabs>
        <Text c="dimmed" size="xs" mt="xl" ta="center">
          {useDesk.getState().info?.mode === 'web' ? 'Web mode' : 'Desktop'} · v{useDesk.getState().info?.version}
        </Text>
      </AppShell.Main>
    </AppShell>
  )
}
