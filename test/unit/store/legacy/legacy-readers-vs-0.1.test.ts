/**
 * The readers of the 0.1 formats read the fixture (test/fixtures/legacy-0.1.0, both variants) exactly
 * as 0.1's own storage code opened it: the journaled documents, the message logs, the webhook outbox
 * and the auth state. 0.1's code is still in the tree (src/main/store/journaled-document.ts,
 * message-log.ts, record-check.ts, webhooks/outbox.ts, channel/baileys/auth-store.ts, unchanged since
 * commit 9aeed71); this file goes with them when they are deleted. 0.1's code rewrites files when it
 * opens them, so it reads a copy.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BufferJSON, proto } from 'baileys'
import { afterAll, describe, expect, it } from 'vitest'
import { AuthStore } from '../../../../src/main/channel/baileys/auth-store'
import { JournaledDocument } from '../../../../src/main/store/journaled-document'
import { MessageLog } from '../../../../src/main/store/message-log'
import { checkConfig, checkRuntime } from '../../../../src/main/store/record-check'
import { readOutboxFile } from '../../../../src/main/webhooks/outbox'
import { readAuthDir } from '../../../../src/main/store/legacy/auth-reader'
import { readLegacyConfig, readLegacyRuntime } from '../../../../src/main/store/legacy/legacy-documents'
import { readMessageLog } from '../../../../src/main/store/legacy/message-log-reader'
import { readWebhookOutbox } from '../../../../src/main/store/legacy/outbox-reader'

const FIXTURE = join(__dirname, '../../../fixtures/legacy-0.1.0')
const copies: string[] = []
afterAll(async () => {
  for (const c of copies) await rm(c, { recursive: true, force: true })
})

async function copyOf(variant: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-legacy-oracle-'))
  copies.push(dir)
  await cp(join(FIXTURE, variant), dir, { recursive: true })
  return dir
}

/** A plain-JSON view (Buffers as BufferJSON) for comparing values of both readers. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v, BufferJSON.replacer))

describe.each(['running', 'stopped'])('fixture %s', (variant) => {
  it('the documents replay to what 0.1 opened', async () => {
    const dir = await copyOf(variant)
    const mine = { config: (await readLegacyConfig(join(FIXTURE, variant))).data, runtime: (await readLegacyRuntime(join(FIXTURE, variant))).data }
    const config = await JournaledDocument.open({ dir, name: 'chatapp', defaults: mine.config, validate: checkConfig })
    const runtime = await JournaledDocument.open({ dir, name: 'runtime', defaults: mine.runtime, validate: checkRuntime })
    expect(plain(mine.config)).toEqual(plain(config.data))
    expect(plain(mine.runtime)).toEqual(plain(runtime.data))
    await Promise.all([config.close(), runtime.close()])
    // The variants differ in where the data is (journal or snapshot), not in what it is.
    expect(mine.config.instances).toHaveLength(2)
    expect(mine.runtime.broadcasts).toHaveLength(1)
  })

  it('the message logs and the outbox read as 0.1 read them', async () => {
    const dir = await copyOf(variant)
    const log = new MessageLog(join(dir, 'messages'), 1_000_000)
    const files = (await readdir(join(FIXTURE, variant, 'messages'))).filter((f) => f.endsWith('.jsonl'))
    expect(files).toHaveLength(2)
    for (const f of files) {
      const mine = await readMessageLog(join(FIXTURE, variant, 'messages', f))
      expect(mine.skipped).toEqual([])
      expect(mine.entries).toEqual(await log.list(f.replace('.jsonl', ''), { limit: 1_000_000 }))
    }
    await log.close()
    const outbox = await readWebhookOutbox(join(FIXTURE, variant, 'webhook-outbox.jsonl'))
    expect(outbox).toEqual(await readOutboxFile(join(dir, 'webhook-outbox.jsonl')))
    expect(outbox.some((d) => d.status === 'pending')).toBe(true)
  })

  it('the auth state (creds and every Signal key) is what 0.1 loaded', async () => {
    const dir = await copyOf(variant)
    const sessions = await readdir(join(FIXTURE, variant, 'sessions'))
    let keys = 0
    for (const id of sessions) {
      const mine = await readAuthDir(join(FIXTURE, variant, 'sessions', id))
      if (!mine.creds) continue
      const store = await AuthStore.open(join(dir, 'sessions', id))
      expect(plain(mine.creds)).toEqual(plain(store.creds))
      expect(store.paired).toBe(true)
      for (const [type, bucket] of mine.keys) {
        expect(store.count(type as never)).toBe(bucket.size)
        const theirs = await store.keys.get(type as never, [...bucket.keys()])
        for (const [kid, value] of bucket) {
          // 0.1 made app-state-sync-key values protobuf objects; so will the new store's reader.
          const v = type === 'app-state-sync-key' ? proto.Message.AppStateSyncKeyData.fromObject(value as object) : value
          expect(plain(v)).toEqual(plain(theirs[kid]))
          keys++
        }
      }
      await store.close()
    }
    expect(keys).toBeGreaterThan(100)
  })
})
