/**
 * The preload with the mocked electron module: it exposes exactly one bridge, `chatappIpc`, which
 * forwards contract methods to their IPC channels and refuses any other name without touching IPC.
 */
import { describe, expect, it, vi } from 'vitest'
import { contextBridge, ipcRenderer } from 'electron'
import type { PreloadBridge } from '../../../src/shared/contract'

describe('preload bridge', () => {
  it('forwards contract methods only, and relays events', async () => {
    const exposed: Record<string, unknown> = {}
    vi.spyOn(contextBridge, 'exposeInMainWorld').mockImplementation(((key: string, api: unknown) => void (exposed[key] = api)) as never)
    const invoke = vi.spyOn(ipcRenderer, 'invoke').mockImplementation((async () => ({ ok: true, data: 'x' })) as never)
    const on = vi.spyOn(ipcRenderer, 'on')
    const off = vi.spyOn(ipcRenderer, 'removeListener')
    await import('../../../src/preload/index')
    expect(Object.keys(exposed)).toEqual(['chatappIpc'])
    const bridge = exposed.chatappIpc as PreloadBridge
    expect(await bridge.call('instances.list', {})).toEqual({ ok: true, data: 'x' })
    expect(invoke).toHaveBeenCalledWith('chatapp:rpc:instances.list', {})
    expect(await bridge.call('shell.openExternal', 'file:///')).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } })
    expect(invoke).toHaveBeenCalledTimes(1)
    const listener = vi.fn()
    const unsubscribe = bridge.onEvent(listener)
    const [channel, wrapped] = on.mock.calls[0] as unknown as [string, (e: unknown, ev: unknown) => void]
    expect(channel).toBe('chatapp:event')
    wrapped({ sender: 'ipc internals' }, { type: 'changed', instanceId: 'i', what: 'intents' })
    expect(listener).toHaveBeenCalledWith({ type: 'changed', instanceId: 'i', what: 'intents' })
    unsubscribe()
    expect(off).toHaveBeenCalledWith('chatapp:event', wrapped)
  })
})
