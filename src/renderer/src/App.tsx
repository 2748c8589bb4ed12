/**
 * The app shell: picks the transport (the preload's IPC bridge inside Electron, else HTTP with a
 * login), then shows the header (instance picker, live status) and the sections: a row of tabs on a
 * wider screen, a menu (the header's ☰, a side panel listing every section) on a phone, where a row
 * of eleven tabs would not fit.
 */
import { AppShell, Burger, Button, Center, Group, Loader, NavLink, ScrollArea, Select, Stack, Tabs, Text, Title } from '@mantine/core'
import { useDisclosure, useMediaQuery } from '@mantine/hooks'
import { useEffect, useMemo, useState } from 'react'
import { pickerLabel } from './instance-label'
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
  // Mantine's `sm` breakpoint (48em): below it, the menu instead of the tab row.
  const phone = useMediaQuery('(max-width: 48em)') ?? false
  const [menuOpen, menu] = useDisclosure(false)
  const change = (v: string | null) => {
    if (!confirmLeave()) return
    const t = (v ?? 'instances') as TabId
    localStorage.setItem('chatapp.tab', t)
    setTab(t)
    menu.close()
  }
  const sections = TABS.filter(([id]) => shown.includes(id))
  const current = sections.find(([id]) => id === tab)?.[1]
  const byId = new Map(instances.map((i) => [i._id, i]))
  return (
    <AppShell data-layout={phone ? 'phone' : 'wide'} header={{ height: 60 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !menuOpen, desktop: true } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px={{ base: 'xs', sm: 'md' }} justify="space-between" wrap="nowrap" gap="xs">
          {/* A phone: the menu's button, and where one is. */}
          <Group gap={6} wrap="nowrap" hiddenFrom="sm" style={{ minWidth: 0, flex: '0 1 auto' }}>
            <Burger opened={menuOpen} onClick={menu.toggle} size="sm" aria-label={menuOpen ? 'Close the menu' : `Open the menu (${current ?? 'sections'})`} data-testid="menu-button" />
            <Text fw={600} truncate onClick={menu.toggle} style={{ cursor: 'pointer' }} data-testid="section-title">
              {current}
            </Text>
          </Group>
          <Title order={3} visibleFrom="sm">
            Chatapp Desk
          </Title>
          <Group gap="xs" wrap="nowrap" ml="auto" style={{ minWidth: 0 }}>
            <Select
              aria-label="Instance"
              placeholder={instances.length ? 'Pick an instance' : 'No instances yet'}
              // The number is never the part that is cut: alone on a phone, after a shortened name elsewhere.
              data={instances.map((i) => ({ value: i._id, label: pickerLabel(i, phone) }))}
              renderOption={({ option, checked }) => {
                const i = byId.get(option.value)
                const number = i?.settings.bot_number ? `+${i.settings.bot_number}` : null
                return (
                  <div style={{ minWidth: 0 }}>
                    <Text size="sm" fw={checked ? 600 : 400} truncate>
                      {i?.settings.bot_name ?? option.label}
                    </Text>
                    {/* The name says the number already when it is the number. */}
                    {i?.settings.bot_name !== number && (
                      <Text size="xs" c="dimmed">
                        {number ?? 'not linked yet'}
                      </Text>
                    )}
                  </div>
                )
              }}
              value={selectedId}
              // Picking the instance shown again keeps it (an empty picker has nothing to show).
              allowDeselect={false}
              onChange={(id) => confirmLeave() && select(id)}
              // A phone's header has no room for the status badge: its colour is a dot in the picker.
              leftSection={phone && selected ? <StatusBadge status={selected.settings.status} compact /> : undefined}
              leftSectionWidth={phone && selected ? 24 : undefined}
              w={{ base: 184, sm: 300 }}
              title={selected ? `${selected.settings.bot_name}${selected.settings.bot_number ? ` · +${selected.settings.bot_number}` : ''}` : undefined}
              data-testid="instance-picker"
            />
            {selected && !phone && <StatusBadge status={selected.settings.status} />}
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
      {/* Only while open: a closed menu is out of sight, and out of the keyboard's and screen readers' way too. */}
      {menuOpen && (
        <AppShell.Navbar p="xs" aria-label="Sections" data-testid="menu">
          <AppShell.Section grow component={ScrollArea}>
            <Stack gap={2}>
              {sections.map(([id, label]) => (
                <NavLink key={id} label={label} active={id === tab} onClick={() => change(id)} aria-current={id === tab ? 'page' : undefined} variant="light" />
              ))}
            </Stack>
          </AppShell.Section>
          <AppShell.Section>
            <Text c="dimmed" size="xs" p="xs">
              Chatapp Desk · v{useDesk.getState().info?.version}
            </Text>
          </AppShell.Section>
        </AppShell.Navbar>
      )}
      <AppShell.Main>
        <ConnectionBanner onPair={(id) => (select(id), change('pairing'))} />
        <Tabs value={tab} onChange={change} keepMounted={false}>
          {/* Wider screens: one row (it scrolls sideways only if a window is narrower than the row). */}
          <Tabs.List mb="md" visibleFrom="sm" style={{ flexWrap: 'nowrap', overflowX: 'auto', overflowY: 'hidden' }}>
            {sections.map(([id, label]) => (
              <Tabs.Tab key={id} value={id}>
                {label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {sections.map(([id, , Panel]) => (
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
