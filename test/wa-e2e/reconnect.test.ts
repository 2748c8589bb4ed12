/**
 * Failures that heal, end to end against the protocol test server (docs/baileys.md "Close codes"):
 * stream errors 500 (what Baileys reports for any unknown stream error) never unlink the device, a
 * 440 (another client took the session) is retried once after a pause and stops only when it repeats
 * within minutes, and a server that drops every connection soon after login meets a growing backoff
 * instead of a login per second. Backoff delays are scaled down here (options of the channel); the
 * default schedule is checked with a fake clock in test/unit/baileys/baileys-session.test.ts.
 */
import { describe, expect, it, vi } from 'vitest'
import { waTestSuite, type WaInstance } from '../helpers/wa-instance'
import type { BaileysChannelOptions } from '../../src/main/channel/baileys'
import type { BaileysSession } from '../../src/main/channel/baileys/baileys-session'

const suite = waTestSuite()
const linked = (channel: BaileysChannelOptions) => suite.linked({ channel })

const reason = async (t: WaInstance): Promise<string | null> =>
  (await t.h.call({ method: 'GET', url: `/chatapp/instance?${t.qs}` })).json.data.instance_data.status_reason

describe('failures that heal', () => {
  it('five stream errors 500 in a row at login: the credentials stay, the reason is shown, and it connects when the server recovers', async () => {
    const t = await linked({ serverErrorBackoff: { baseMs: 30, maxMs: 120, jitter: 0 } })
    const reasons = new Set<string>()
    t.h.core.events.on('state', (e) => e.reason && reasons.add(e.reason))
    t.server.behaviour.loginStreamErrors = [500, 500, 500, 500, 500]
    expect(t.server.disconnect()).toBe(1)
    await vi.waitFor(async () => expect(await reason(t)).toMatch(/500.*retrying in/), { timeout: 5000 })
    await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'), { timeout: 10_000 })
    expect(t.server.loginFailures).toBe(5)
    expect(await t.h.core.sessions.hasCredentials(t.inst._id)).toBe(true)
    expect(t.server.phone.linked).toBe(true)
    expect([...reasons].join('\n')).not.toMatch(/logged out/i)
  })

  it('a 440: reconnects after a pause with its credentials; a second 440 within minutes stops it and says why', async () => {
    const t = await linked({ replacedRetryMs: 200, replacedWindowMs: 60_000 })
    expect(t.server.replaceSession()).toBe(true)
    await vi.waitFor(async () => expect(await reason(t)).toMatch(/another WhatsApp Web client took over.*440.*reconnecting in/i), { timeout: 3000 })
    expect(t.record().settings.status).toBe('CONNECTING')
    await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'), { timeout: 5000 })
    const loginsBefore = t.server.logins.length

    expect(t.server.replaceSession()).toBe(true)
    await vi.waitFor(() => expect(t.record().settings.status).toBe('DISCONNECTED'), { timeout: 3000 })
    expect(await reason(t)).toMatch(/again within .*stopped.*init/i)
    expect(await t.h.core.sessions.hasCredentials(t.inst._id)).toBe(true)
    // Stopped for good: no socket and no reconnect timer left (so no login can follow), and none came.
    const session = t.h.core.sessions.get(t.inst._id) as BaileysSession
    expect(session.hasSocket).toBe(false)
    expect(session.reconnectPending).toBe(false)
    expect(t.server.logins.length).toBe(loginsBefore)
    // The server's record of the device: both connections ended as replaced, never two live at once.
    expect(t.server.deviceConnections()).toMatchObject({ live: 0, maxLive: 1, replaced: 2 })
    expect(t.server.deviceConnections()!.connections.map((c) => c.endedBy)).toEqual(['replaced', 'replaced'])
  })

  it('a server that drops each connection 100 ms after login: the delay between logins keeps growing (no reset on a short open)', async () => {
    const t = await linked({ backoff: { baseMs: 50, maxMs: 3200, jitter: 0 }, stableOpenMs: 5000 })
    const start = t.server.logins.length
    t.server.behaviour.dropAfterLoginMs = 100
    expect(t.server.disconnect()).toBe(1)
    await vi.waitFor(() => expect(t.server.logins.length).toBeGreaterThanOrEqual(start + 5), { timeout: 15_000 })
    const times = t.server.logins.slice(start)
    const gaps = times.slice(1).map((at, i) => at - times[i]!)
    // Each gap is the 100 ms the connection lived plus the backoff: 100, 200, 400, 800 ms.
    expect(gaps[3]! - gaps[0]!).toBeGreaterThan(500)
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]!).toBeGreaterThan(gaps[i - 1]!)
    t.server.behaviour.dropAfterLoginMs = null
  })
})
