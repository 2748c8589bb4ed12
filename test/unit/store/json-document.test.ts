import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { JsonDocument } from '../../../src/main/store/json-document'
import { DataFileError } from '../../../src/main/store/atomic-json-file'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-doc-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

it('creates from defaults, fills keys an older file lacks, and persists updates', async () => {
  const file = join(dir, 'd.json')
  await writeFile(file, JSON.stringify({ a: [1] }))
  const doc = await JsonDocument.open(file, { a: [] as number[], b: 'new' })
  expect(doc.data).toEqual({ a: [1], b: 'new' })
  await doc.update((d) => d.a.push(2))
  expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ a: [1, 2], b: 'new' })
})

it('groups a burst of updates into few writes, each acknowledged after its data is on disk', async () => {
  const file = join(dir, 'd.json')
  const doc = await JsonDocument.open(file, { n: [] as number[] })
  const write = vi.spyOn((doc as unknown as { low: { write(): Promise<void> } }).low, 'write')
  await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      doc.update((d) => d.n.push(i)).then(async () => {
        const onDisk = JSON.parse(await readFile(file, 'utf8')) as { n: number[] }
        expect(onDisk.n).toContain(i)
      })
    )
  )
  expect(write.mock.calls.length).toBeLessThan(10)
  expect(JSON.parse(await readFile(file, 'utf8')).n).toHaveLength(200)
})

it('refuses an unreadable file with DataFileError', async () => {
  const file = join(dir, 'd.json')
  await writeFile(file, '{"broken":')
  await expect(JsonDocument.open(file, {})).rejects.toBeInstanceOf(DataFileError)
})
