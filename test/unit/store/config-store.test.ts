import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigStore } from '../../../src/main/store/config/config-store'

describe('ConfigStore after close', () => {
  it('refuses a change: a late writer (a WA Web version fetch finishing during a restore) must not write its old document over the restored file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-config-'))
    try {
      const file = join(dir, 'config.json')
      const config = await ConfigStore.open(file)
      await config.update((d) => void (d.appSettings.smtp = null))
      await config.close()
      // The restore puts another document in place.
      const restored = JSON.stringify({ version: 1, account: null, appSettings: { smtp: null }, instances: [], restored: true })
      await writeFile(file, restored)
      await expect(config.update((d) => void (d.appSettings.waWebVersion = { version: [2, 3000, 1], fetchedAt: 'x' }))).rejects.toThrow(/closed/)
      expect(await readFile(file, 'utf8')).toBe(restored)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
