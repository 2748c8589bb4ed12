/**
 * Updates end to end below the window (docs/design.md §19): electron-updater's real .deb updater, driven by the
 * app's UpdateController, against a feed served from a loopback port, with a real core (sandbox
 * channel) saying what runs. A newer version is offered, downloaded and checked by its sha512; a file
 * whose sha512 does not match is refused and nothing is left to install; an older or equal version is
 * ignored without downloading anything; with automatic download off the owner's click downloads;
 * "Restart to update" asks first while a broadcast runs and waits for a send in flight; the app
 * never restarts by itself while a broadcast or survey runs. No Electron: the shell's quit-and-install
 * is recorded instead of run.
 */
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SandboxSession } from '../../../src/main/channel/sandbox-channel'
import { internalsOf } from '../../../src/main/core'
import { silentLogger } from '../../../src/main/logger'
import { resolveFeed } from '../../../src/main/electron/update-feed'
import { UpdateController } from '../../../src/main/electron/updater'
import type { InstallKind } from '../../../src/main/electron/update-policy'
import type { UpdateStatusT } from '../../../src/shared/operations/updates'
import { makeHarness, type Harness } from '../../helpers/harness'
import { ManualClock } from '../../helpers/manual-clock'
import { installerName, makeDebUpdater, sha512, startLoopbackFeed, type LoopbackFeed, type TestUpdater } from '../../support/update-feed'

const CURRENT = '0.1.0'
const NEXT = Buffer.from('the bytes of chatapp-desk 0.2.0 (a .deb as far as the updater cares)')

let feed: LoopbackFeed
let h: Harness
let clock: ManualClock
let t: TestUpdater
let installs: boolean[]
let notified: string[]

beforeEach(async () => {
  feed = await startLoopbackFeed()
  clock = new ManualClock()
  h = await makeHarness({ clock, timers: clock })
  t = await makeDebUpdater(CURRENT)
  installs = []
  notified = []
})
afterEach(async () => {
  await h.close()
  await feed.close()
  await t.cleanup()
})

async function controller(opts: { kind?: InstallKind; localHour?: number; quitAndInstall?: (silent: boolean) => void } = {}): Promise<UpdateController> {
  return UpdateController.open({
    updater: t.updater,
    feed: resolveFeed({ CHATAPP_UPDATE_URL: feed.url, CHATAPP_UPDATE_ALLOW_HTTP_LOOPBACK: '1' }, null),
    kind: opts.kind ?? 'deb',
    currentVersion: CURRENT,
    settingsFile: join(t.dir, 'user-data', 'update-settings.json'),
    activity: h.core.activity,
    quitAndInstall: opts.quitAndInstall ?? ((silent) => installs.push(silent)),
    onDownloaded: (v) => notified.push(v),
    logger: silentLogger(),
    localHour: () => opts.localHour ?? 14
  })
}

/** Waits for the controller to leave the downloading state; answers the status it settled in. */
async function settled(c: UpdateController): Promise<UpdateStatusT> {
  await expect.poll(() => c.status().state, { timeout: 10_000 }).not.toBe('downloading')
  return c.status()
}

const downloadedFiles = async () => (existsSync(t.pendingDir) ? (await readdir(t.pendingDir)).filter((f) => f.endsWith('.deb')) : [])

describe('update check against a loopback feed', () => {
  it('offers a newer version, downloads it by itself and keeps it only when its sha512 matches', async () => {
    feed.publish({ version: '0.2.0', bytes: NEXT, releaseNotes: '- Installers\n- <b>Updates</b> that arrive by themselves' })
    const c = await controller()
    const seen: string[] = []
    c.subscribe((s) => seen.push(s.state))
    const checked = await c.check()
    expect(checked.available).toEqual({ version: '0.2.0', releaseNotes: '- Installers\n- Updates that arrive by themselves', releaseDate: '2026-11-20T10:00:00.000Z' })
    const s = await settled(c)
    expect(s).toMatchObject({ state: 'downloaded', error: null, supported: true, feed: feed.url, needsPassword: true, installsOnQuit: false })
    expect(seen).toEqual(expect.arrayContaining(['checking', 'available', 'downloading', 'downloaded']))
    expect(notified).toEqual(['0.2.0'])
    const [file] = await downloadedFiles()
    expect(await readFile(join(t.pendingDir, file!))).toEqual(NEXT)
    expect(feed.requests).toEqual(['/feed/latest-linux.yml', `/feed/${installerName('0.2.0')}`])
  })

  it('refuses a file whose sha512 does not match the feed: an error, nothing to install', async () => {
    feed.publish({ version: '0.2.0', bytes: NEXT, announcedSha512: sha512(Buffer.from('what the release really was')) })
    const c = await controller()
    await c.check()
    const s = await settled(c)
    expect(s.state).toBe('error')
    expect(s.error).toMatch(/did not match the sha512/)
    expect(await downloadedFiles()).toEqual([])
    await c.restart(true)
    expect(c.status().state).toBe('error')
    await c.maybeInstallUnattended()
    expect(installs).toEqual([])
  })

  it.each([
    ['equal', CURRENT],
    ['older', '0.0.9']
  ])('ignores an %s version without downloading anything', async (_what, version) => {
    feed.publish({ version, bytes: NEXT })
    const c = await controller()
    expect(await c.check()).toMatchObject({ state: 'up-to-date', available: null, error: null })
    expect(feed.requests).toEqual(['/feed/latest-linux.yml'])
    expect(c.status().lastCheckAt).not.toBeNull()
  })

  it('with automatic download off, offers the update and downloads it on the owner’s click; the choice is kept', async () => {
    feed.publish({ version: '0.2.0', bytes: NEXT })
    const c = await controller()
    await c.setAutoDownload(false)
    expect(await c.check()).toMatchObject({ state: 'available', autoDownload: false })
    expect(feed.requests).toEqual(['/feed/latest-linux.yml'])
    expect((await controller()).status().autoDownload).toBe(false)
    await c.download()
    expect((await settled(c)).state).toBe('downloaded')
  })

  it('says why when the feed has no update information, and finds the release at the next check', async () => {
    const c = await controller()
    expect(await c.check()).toMatchObject({ state: 'error', error: expect.stringMatching(/no update information/) })
    feed.publish({ version: '0.2.0', bytes: NEXT })
    await c.check()
    expect((await settled(c)).state).toBe('downloaded')
  })
})

describe('restarting to install', () => {
  let qs: string
  let instanceId: string
  const call = (method: 'GET' | 'POST', url: string, payload?: object) => h.instanceApi(qs)(method, url, payload)

  beforeEach(async () => {
    const inst = await h.connectedInstance()
    qs = inst.qs
    instanceId = inst.inst._id
    feed.publish({ version: '0.2.0', bytes: NEXT })
  })

  async function downloaded(opts?: Parameters<typeof controller>[0]): Promise<UpdateController> {
    const c = await controller(opts)
    await c.check()
    expect((await settled(c)).state).toBe('downloaded')
    return c
  }

  it('asks first while a broadcast sends, and never restarts by itself then; installs once it is over', async () => {
    const c = await downloaded({ kind: 'nsis', localHour: 3 })
    const b = (await call('POST', '/broadcast', { send_type: 'individual', to: '15550002222,15550003333', message: { text: 'Hi' } })).data
    expect(await c.restart(false)).toMatchObject({ state: 'downloaded', blockers: ['broadcast'] })
    expect(await c.maybeInstallUnattended()).toBe(false)
    await h.core.broadcasts.idle()
    await call('POST', `/broadcast/${b._id}/cancel`)
    expect(await c.maybeInstallUnattended()).toBe(true)
    await expect.poll(() => installs).toEqual([true])
  })

  it('never restarts by itself while a survey waits for an answer', async () => {
    const c = await downloaded({ kind: 'nsis', localHour: 3 })
    const creds = { session_id: h.core.instances.get(instanceId).session_id, access_token: h.core.instances.get(instanceId).settings.access_token }
    await call('POST', '/survey', { ...creds, title: 'Order', keyword: 'order', reply: 'What would you like?', sort_id: 1 })
    await call('POST', '/survey', { ...creds, title: 'Order', keyword: '', reply: 'Which size?', sort_id: 2 })
    await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550001111', message: 'order' })
    expect(await c.maybeInstallUnattended()).toBe(false)
    expect(await c.restart(false)).toMatchObject({ blockers: ['survey'] })
    // The owner may still choose to restart now.
    expect(await c.restart(true)).toMatchObject({ state: 'installing' })
    await expect.poll(() => installs).toEqual([false])
  })

  it('waits for a send in flight before installing', async () => {
    const c = await downloaded()
    const session = internalsOf(h.core).sessions.get(instanceId) as SandboxSession
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const send = session.send.bind(session)
    session.send = async (...args) => {
      await gate
      return send(...args)
    }
    const sent = call('POST', '/chatapp/message', { chatId: '15550001111', message: 'Your order is ready' })
    await expect.poll(async () => (await h.core.activity.snapshot()).sends).toBe(1)
    expect(await c.restart(false)).toMatchObject({ state: 'installing', blockers: ['sends'] })
    // Still waiting: the send has not settled, so nothing was installed.
    await Promise.resolve()
    expect(installs).toEqual([])
    release()
    await sent
    await expect.poll(() => installs).toEqual([false])
    expect(c.status().blockers).toEqual([])
  })

  it('keeps the downloaded update and says why when installing fails (the password prompt cancelled)', async () => {
    // What electron-updater's DebUpdater does when pkexec or dpkg fails: it reports an error and the app keeps running.
    const c = await downloaded({ quitAndInstall: () => void t.updater.emit('error', new Error('Command pkexec exited with code 126')) })
    await c.restart(false)
    await expect.poll(() => c.status().state).toBe('downloaded')
    expect(c.status().error).toBe('The update could not be installed: Command pkexec exited with code 126')
    expect(c.status().blockers).toEqual([])
  })

  it('installs by itself only at night, only packages that need no password, and on quit under the same rule', async () => {
    expect(await (await downloaded({ kind: 'nsis', localHour: 14 })).maybeInstallUnattended()).toBe(false)
    expect(await (await downloaded({ kind: 'deb', localHour: 3 })).maybeInstallUnattended()).toBe(false)
    const deb = await downloaded({ kind: 'deb' })
    expect(deb.installOnQuit()).toBe(false)
    expect(installs).toEqual([])
  })
})
