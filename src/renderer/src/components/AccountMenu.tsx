/**
 * The header's account menu in web mode: who is signed in (name and role), "Sign out" (this session)
 * and, for a person with a password, "Sign out everywhere" (every device they signed in on).
 */
import { Avatar, Menu, UnstyledButton } from '@mantine/core'
import type { MeViewT } from '../../../shared/operations/table/people'

/** Up to two initials of a name, for the menu's button. */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean)
  return (words.length > 1 ? words[0]![0]! + words[words.length - 1]![0]! : (words[0] ?? '?').slice(0, 2)).toUpperCase()
}

export function AccountMenu({ me, onSignOut }: { me: MeViewT; onSignOut(everywhere: boolean): Promise<void> }) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label="Account" title={`${me.name} (${me.role})`} data-testid="account-menu">
          <Avatar size={32} radius="xl" color="teal">
            {initialsOf(me.name)}
          </Avatar>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label data-testid="account-who">
          {me.name} · {me.role}
        </Menu.Label>
        <Menu.Item onClick={() => void onSignOut(false)} title="Sign out of this desk (your WhatsApp stays linked)">
          Sign out
        </Menu.Item>
        {me.kind === 'staff' && (
          <Menu.Item onClick={() => void onSignOut(true)} title="End your sessions on every device">
            Sign out everywhere
          </Menu.Item>
        )}
      </Menu.Dropdown>
    </Menu>
  )
}
