/**
 * The UI state (zustand): the contract client, app info, the instance list kept live from events, the
 * selected instance, the latest QR per instance, the app's update status and who is signed in (`auth.me`:
 * role, permissions, instances; the UI offers only what they may use, src/renderer/src/access.ts). One event subscription
 * feeds everything; tabs listen through {@link onContractEvent} instead of opening their own streams.
 */
import { create } from 'zustand'
import { ContractError, type AppInfo, type ContractClient, type ContractEvent, type ContractInput, type ContractMethod, type ContractOutput } from '../../shared/contract'
import type { Instance, Label } from '../../shared/schemas/records'
import type { AboutInfoT, UpdateStatusT } from '../../shared/operations/updates'
import type { MeViewT } from '../../shared/operations/table/people'
import { mayCall } from './access'

interface DeskState {
  client: ContractClient | null
  info: AppInfo | null
  /** Who is signed in (`auth.me`). */
  me: MeViewT | null
  instances: readonly Instance[]
  instancesLoaded: boolean
  selectedId: string | null
  /** Latest QR data URL per instance, from `qr` events. */
  qr: Record<string, string>
  /** The labels (names, colours), kept live from `labels` events. */
  labels: readonly Label[]
  /** Version and data folder (Settings → About, the first-run welcome). */
  about: AboutInfoT | null
  /** The app's update status, kept live from `update` events (the desktop app's updater). */
  update: UpdateStatusT | null
  /** Takes an update status unless one already seen is newer (answers and events can cross). */
  setUpdate(status: UpdateStatusT): void
  connect(client: ContractClient): Promise<void>
  disconnect(): void
  refreshInstances(): Promise<void>
  select(id: string | null): void
}

const listeners = new Set<(e: ContractEvent) => void>()
let unsubscribe: (() => void) | null = null

/**
 * Runs a refresh an event asked for. While a restore swaps the data the app answers 503, and the
 * restore's own events (sessions stopping) arrive then: such a refresh is dropped, as the restored
 * data's events (and the restoring page's reload) read everything again. Other failures still surface.
 */
function refreshOnEvent(refresh: Promise<unknown>): void {
  refresh.catch((err: unknown) => {
    if (!(err instanceof ContractError && err.code === 'SERVICE_UNAVAILABLE')) throw err
  })
}

/** Listens to every contract event; returns the unsubscribe function. */
export function onContractEvent(listener: (e: ContractEvent) => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export const useDesk = create<DeskState>((set, get) => ({
  client: null,
  info: null,
  me: null,
  instances: [],
  instancesLoaded: false,
  selectedId: localStorage.getItem('chatapp.selected'),
  qr: {},
  labels: [],
  about: null,
  update: null,
  setUpdate(status) {
    const seen = get().update
    if (!seen || status.revision >= seen.revision) set({ update: status })
  },
  async connect(client) {
    unsubscribe?.()
    set({ client })
    unsubscribe = client.subscribe((e) => {
      if (e.type === 'qr') set((s) => ({ qr: { ...s.qr, [e.instanceId]: e.qrDataUrl } }))
      if (e.type === 'state' || e.type === 'resync' || (e.type === 'changed' && (e.what === 'instance' || e.what === 'deleted'))) refreshOnEvent(get().refreshInstances())
      if ((e.type === 'labels' || e.type === 'resync') && mayCall(get().me, 'labels.list')) refreshOnEvent(client.call('labels.list', {}).then((labels) => set({ labels })))
      if (e.type === 'update') get().setUpdate(e.status)
      for (const l of listeners) l(e)
    })
    const [info, me] = await Promise.all([client.call('app.info', {}), client.call('auth.me', {})])
    // Only what this person may read: a forbidden call at start would leave the window blank.
    const [labels, about, update] = await Promise.all([
      mayCall(me, 'labels.list') ? client.call('labels.list', {}) : [],
      client.call('app.about', {}),
      mayCall(me, 'updates.status') ? client.call('updates.status', {}) : null
    ])
    set({ info, me, labels, about })
    if (update) get().setUpdate(update)
    await get().refreshInstances()
  },
  disconnect() {
    unsubscribe?.()
    unsubscribe = null
    set({ client: null, info: null, me: null, about: null, update: null, instances: [], instancesLoaded: false })
  },
  async refreshInstances() {
    const client = get().client
    if (!client) return
    const instances = await client.call('instances.list', {})
    const selected = get().selectedId
    set({ instances, instancesLoaded: true })
    if (!selected || !instances.some((i) => i._id === selected)) get().select(instances[0]?._id ?? null)
  },
  select(id) {
    if (id) localStorage.setItem('chatapp.selected', id)
    else localStorage.removeItem('chatapp.selected')
    set({ selectedId: id })
  }
}))

/** Calls a contract method with the connected client. */
export function call<M extends ContractMethod>(method: M, input: ContractInput<M>): Promise<ContractOutput<M>> {
  const client = useDesk.getState().client
  if (!client) return Promise.reject(new Error('Not connected'))
  return client.call(method, input)
}

/** The selected instance record, if any. */
export function useSelectedInstance(): Instance | undefined {
  return useDesk((s) => s.instances.find((i) => i._id === s.selectedId))
}

/** Whether the signed-in caller may call `method` (the UI hides what would be refused). */
export function useMayCall(method: ContractMethod): boolean {
  return useDesk((s) => mayCall(s.me, method))
}
