/**
 * A take-over lasts until the new owner's CONNECTED is stored (docs/design.md §22 "Take-over";
 * src/main/services/instances/session-manager.ts `takingOver`). A change that waits for a take-over
 * (api/forward.ts) goes ahead once it ends, and a send is refused while the stored status still says
 * CONNECTING (messages/outbound.ts `connectedSession`). Ended before the write, it let a waiting
 * send through into that refusal: the 409 "being taken over" seen now and then in
 * test/api/workers-takeover.test.ts under load, when the write took long. Real core on SQLite; the
 * configuration's write is held (a slow disk) to open the window wide.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { internalsOf, startCore, type Core } from '../../../src/main/core'
import type { Instance } from '../../../src/shared/schemas/records'

let core: Core | undefined
let dir: string | undefined
afterEach(async () => {
  await core?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
  core = undefined
})

it('the claimed instance is being taken over until its CONNECTED is stored, not only reported', async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-take-over-'))
  core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', restoreSessions: false })
  const inst = await core.instances.create('sandbox')
  await core.connection.init(inst, undefined)
  await core.sandbox.scan(core.instances.get(inst._id))
  const { sessions, storage } = internalsOf(core)
  const stored = () => storage.repos.instances.find(inst._id)?.settings.status
  expect(stored()).toBe('CONNECTED')

  // The worker that ran it stopped without a word (its record still says CONNECTED); this one claims it.
  await sessions.drop(inst._id)
  const repo = storage.repos.instances
  const write = repo.update.bind(repo)
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  const seen: Array<{ writing: string | undefined; takingOver: boolean }> = []
  repo.update = async (id: string, recipe: Parameters<typeof write>[1]) => {
    const draft = structuredClone(repo.find(id)) as Instance
    recipe(draft as never)
    if (draft.settings.status === 'CONNECTED') {
      seen.push({ writing: 'CONNECTED', takingOver: sessions.takingOver(id) })
      await held
    }
    return write(id, recipe)
  }
  const resumed = sessions.resume(inst._id, { worker: 'w2', token: 2 } as never)
  await expect.poll(() => seen.length).toBe(1)
  // CONNECTED reported and being written: still a take-over, the stored status says CONNECTING.
  expect(stored()).toBe('CONNECTING')
  expect(seen[0]).toEqual({ writing: 'CONNECTED', takingOver: true })
  expect(sessions.takingOver(inst._id)).toBe(true)
  release()
  await resumed
  await expect.poll(stored).toBe('CONNECTED')
  await expect.poll(() => sessions.takingOver(inst._id)).toBe(false)
})
