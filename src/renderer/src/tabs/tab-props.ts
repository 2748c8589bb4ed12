/**
 * What the window and its tabs share: the tabs' ids and the props every tab gets. Apart from App.tsx
 * (which lists the tabs with their titles and components) so that a tab can name another without
 * importing the window that imports it.
 */

/** The window's tabs, by id. */
export type TabId = 'instances' | 'pairing' | 'settings' | 'intents' | 'surveys' | 'messages' | 'contacts' | 'outreach' | 'testchat' | 'api' | 'people'

/** Props every tab gets: switch to another tab (e.g. Instances → Pairing). */
export interface TabProps {
  goTo(tab: TabId): void
}
