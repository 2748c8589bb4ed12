/**
 * The tray icon: a tooltip and a menu headed by the instances' status summary, with Show, Start at
 * login (optional, off by default) and Quit. Rebuilt whenever an instance changes.
 */
import { Menu, Tray, app, nativeImage } from 'electron'
import type { Core } from '../core'
import { traySummary } from './status-summary'

export interface TrayOptions {
  iconPath: string
  show(): void
  quit(): void
}

/** Creates the tray and keeps it current; returns a function that removes it. */
export function createTray(core: Core, opts: TrayOptions): () => void {
  const tray = new Tray(nativeImage.createFromPath(opts.iconPath))
  const render = () => {
    const summary = traySummary(core.instances.list())
    tray.setToolTip(`Chatapp Desk — ${summary}`)
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: summary, enabled: false },
        { type: 'separator' },
        { label: 'Show Chatapp Desk', click: opts.show },
        {
          label: 'Start at login',
          type: 'checkbox',
          checked: app.getLoginItemSettings().openAtLogin,
          click: (item) => app.setLoginItemSettings({ openAtLogin: item.checked })
        },
        { type: 'separator' },
        { label: 'Quit', click: opts.quit }
      ])
    )
  }
  render()
  tray.on('click', opts.show)
  const offs = [core.events.on('state', render), core.events.on('changed', render)]
  return () => {
    offs.forEach((off) => off())
    tray.destroy()
  }
}
