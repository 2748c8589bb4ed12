/**
 * The updater in the desktop app (docs/design.md §19): electron-updater's updater for this installation (NSIS on
 * Windows, Squirrel on macOS, AppImage / .deb / .rpm on Linux by `resources/package-type`), the feed
 * from `CHATAPP_UPDATE_URL` or the build's `resources/app-update.yml`, and the UpdateController that
 * decides when. Development runs (`npm start`) have no installation to update: their status says so.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { app } from 'electron'
import yaml from 'js-yaml'
import type { Core } from '../core'
import type { Logger } from '../logger'
import { APP_VERSION } from '../version'
import { unsupportedUpdates, type UpdateStatusT, type UpdatesPort } from '../../shared/operations/updates'
import { resolveFeed, type AppUpdateConfig } from './update-feed'
import { installKindOf, installsUnattended } from './update-policy'
import { UpdateController } from './updater'
import type { Notice } from './status-summary'

export interface DesktopUpdates {
  port: UpdatesPort
  /** At quit, after the core closed: installs a downloaded update when the rules allow. */
  installOnQuit(): void
  stop(): void
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

function unsupported(reason: string): DesktopUpdates {
  const status = (): UpdateStatusT => unsupportedUpdates(APP_VERSION, reason)
  return {
    port: { status, check: async () => status(), download: async () => status(), setAutoDownload: async () => status(), restart: async () => status(), subscribe: () => () => {} },
    installOnQuit: () => {},
    stop: () => {}
  }
}

/** Starts the updater of the installed app (checks soon after start, then daily). */
export async function startDesktopUpdates(opts: { core: Core; logger: Logger; notify(notice: Notice): void }): Promise<DesktopUpdates> {
  if (!app.isPackaged) return unsupported('Updates apply to the installed app; this is a development run.')
  const resources = process.resourcesPath
  const kind = installKindOf(process.platform, readText(join(resources, 'package-type')))
  const built = readText(join(resources, 'app-update.yml'))
  const feed = resolveFeed(process.env, built ? (yaml.load(built) as AppUpdateConfig) : null)
  // Loaded only here: its updater is made for the installed package on first access.
  const { default: updaterModule } = await import('electron-updater')
  const updater = updaterModule.autoUpdater
  const controller = await UpdateController.open({
    updater,
    feed,
    kind,
    currentVersion: APP_VERSION,
    settingsFile: join(app.getPath('userData'), 'update-settings.json'),
    activity: opts.core.activity,
    // Linux packages install here, before the quit (through pkexec); the others when the app has quit.
    quitAndInstall: (silent) => updater.quitAndInstall(silent, true),
    onDownloaded: (version) =>
      opts.notify({
        title: `Chatapp Desk ${version} is ready`,
        body: installsUnattended(kind)
          ? 'It installs when you quit, or tonight when nothing is being sent. Settings → About → Restart to update installs it now.'
          : 'Open Settings → About and choose Restart to update (it asks for your password).'
      }),
    logger: opts.logger
  })
  const stop = controller.start()
  opts.logger.info({ feed: feed.ok ? feed.url : feed.reason, kind }, 'updates')
  return {
    port: controller,
    installOnQuit: () => {
      if (controller.installOnQuit()) opts.logger.info('installing the downloaded update on quit')
    },
    stop
  }
}
