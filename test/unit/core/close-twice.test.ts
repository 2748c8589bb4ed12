/**
 * Closing the core from two shutdown paths: the second close waits for the first and
 * neither fails (it used to release the data-dir lock twice: ERELEASED). The lock is released once,
 * so the next start on the same dir takes it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { startCore } from '../../../src/main/core'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-close-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

it('closes once when closed twice at the same time; the second close waits for the first', async () => {
  const core = await startCore({ dataDir: dir, defaultChannel: 'sandbox' })
  const order: string[] = []
  const first = core.close().then(() => order.push('first'))
  const second = core.close().then(() => order.push('second'))
  await Promise.all([first, second])
  expect(order).toEqual(['first', 'second'])
  const next = await startCore({ dataDir: dir, defaultChannel: 'sandbox' })
  await next.close()
})

it('a close after the core closed resolves at once, without touching the released lock', async () => {
  const core = await startCore({ dataDir: dir, defaultChannel: 'sandbox' })
  await core.close()
  await expect(core.close()).resolves.toBeUndefined()
  const next = await startCore({ dataDir: dir, defaultChannel: 'sandbox' })
  await next.close()
})
