/**
 * The About section and updates (docs/design.md §19): UI contract operations (no HTTP route: scripts have no use
 * for them), kept in their own block of the operation table. The desktop shell implements
 * {@link UpdatesPort} over electron-updater (src/main/electron/updater.ts); the headless server has
 * none, and answers a status with `supported: false` and the reason.
 *
 * Pure data (TypeBox schemas, one interface): both processes import it.
 */
import Type, { type Static, type TSchema } from 'typebox'
import { op } from './define'

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])

/** What holds a restart back: a sending broadcast, a survey waiting for an answer, sends in flight. */
export const UpdateBlocker = Type.Union([Type.Literal('broadcast'), Type.Literal('survey'), Type.Literal('sends')])
export type UpdateBlockerT = Static<typeof UpdateBlocker>

export const UPDATE_STATES = ['idle', 'checking', 'up-to-date', 'available', 'downloading', 'downloaded', 'installing', 'error'] as const

/** Where the app's updates stand, for Settings → About. */
export const UpdateStatus = Type.Object({
  supported: Type.Boolean({ description: 'false in the headless server and in development runs; `reason` says why.' }),
  reason: Nullable(Type.String()),
  currentVersion: Type.String(),
  /** The feed checked (a folder holding latest*.yml), null when none. */
  feed: Nullable(Type.String()),
  /** The user's "download updates automatically" (default on). */
  autoDownload: Type.Boolean(),
  state: Type.Enum(UPDATE_STATES),
  /** A newer version the feed offers, and what is new in it (plain text). */
  available: Nullable(Type.Object({ version: Type.String(), releaseNotes: Nullable(Type.String()), releaseDate: Nullable(Type.String()) })),
  /** While downloading: percent 0–100, bytes, bytes per second. */
  progress: Nullable(Type.Object({ percent: Type.Number(), transferred: Type.Integer(), total: Type.Integer(), bytesPerSecond: Type.Number() })),
  lastCheckAt: Nullable(Type.String({ format: 'date-time' })),
  /** The last check's or download's failure, for the owner. */
  error: Nullable(Type.String()),
  /** What the restart waits for (`installing`) or asks about (a broadcast or survey runs: restart anyway?). */
  blockers: Type.Array(UpdateBlocker),
  /** Installing asks for the administrator password (.deb, .rpm): the app never installs those by itself. */
  needsPassword: Type.Boolean(),
  /** A downloaded update also installs when the app quits. */
  installsOnQuit: Type.Boolean(),
  /** Grows with every change: a call's answer older than an event already seen is dropped. */
  revision: Type.Integer({ minimum: 0 })
})
export type UpdateStatusT = Static<typeof UpdateStatus>

/** What Settings → About and the first-run welcome show besides updates. */
export const AboutInfo = Type.Object({
  version: Type.String(),
  /** The folder holding every piece of the app's data (CHATAPP_DATA_DIR), null when unknown. */
  dataDir: Nullable(Type.String())
})
export type AboutInfoT = Static<typeof AboutInfo>

/** The updater as the operations see it; the desktop shell provides it. */
export interface UpdatesPort {
  status(): UpdateStatusT
  /** Asks the feed now; answers once the check is done (a download it starts goes on). */
  check(): Promise<UpdateStatusT>
  /** Downloads the offered update (when automatic download is off). */
  download(): Promise<UpdateStatusT>
  setAutoDownload(enabled: boolean): Promise<UpdateStatusT>
  /** "Restart to update": installs the downloaded update once nothing holds it back (`force`: past a running broadcast or survey). */
  restart(force: boolean): Promise<UpdateStatusT>
  /** Every status change; answers the unsubscribe function. */
  subscribe(listener: (status: UpdateStatusT) => void): () => void
}

const Empty = Type.Object({})

/** The block of the operation table (src/shared/operations/table/index.ts spreads it in). */
export const UPDATE_OPERATIONS = {
  'app.about': op<AboutInfoT>()({ summary: 'Version and data folder of the app', tags: ['app'], scope: 'account', permission: 'signed-in', reach: 'shared', input: Empty, output: AboutInfo, rpc: true }),
  'updates.status': op<UpdateStatusT>()({ summary: 'Where the app’s updates stand', tags: ['app'], scope: 'account', permission: 'admin', input: Empty, output: UpdateStatus, rpc: true }),
  'updates.check': op<UpdateStatusT>()({ summary: 'Check for updates now', audit: 'Checked for updates', tags: ['app'], scope: 'account', permission: 'admin', input: Empty, output: UpdateStatus, rpc: true }),
  'updates.download': op<UpdateStatusT>()({ summary: 'Download the update on offer', audit: 'Downloaded an update', tags: ['app'], scope: 'account', permission: 'admin', input: Empty, output: UpdateStatus, rpc: true }),
  'updates.setAutoDownload': op<UpdateStatusT>()({
    summary: 'Turn automatic update downloads on or off',
    audit: 'Changed automatic update downloads',
    tags: ['app'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ enabled: Type.Boolean() }),
    output: UpdateStatus,
    rpc: true
  }),
  'updates.restart': op<UpdateStatusT>()({
    summary: 'Restart to install the downloaded update',
    audit: 'Restarted to install an update',
    description: 'Waits for sends in flight. While a broadcast sends or a survey waits for an answer, answers the status with those blockers and restarts only with `force`.',
    tags: ['app'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ force: Type.Optional(Type.Boolean()) }),
    output: UpdateStatus,
    rpc: true
  })
} as const

/** The status where there is no updater (the headless server, a development run). */
export function unsupportedUpdates(currentVersion: string, reason: string): UpdateStatusT {
  return {
    supported: false,
    reason,
    currentVersion,
    feed: null,
    autoDownload: false,
    state: 'idle',
    available: null,
    progress: null,
    lastCheckAt: null,
    error: null,
    blockers: [],
    needsPassword: false,
    installsOnQuit: false,
    revision: 0
  }
}
