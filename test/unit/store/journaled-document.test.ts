import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { applyOp, DataFileError, indexOfId, JournaledDocument } from '../../../src/main/store/journaled-document'
import { enospc, injectFileFaults } from '../../../src/main/store/durable-file'

interface Doc {
  items: Array<{ _id: string; n: number }>
  log: string[]
  settings: { a?: number; nested?: { b?: number } }
}
const defaults: Doc = { items: [], log: [], settings: {} }

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-jd-'))
})
afterEach(async () => {
  injectFileFaults(null)
  await rm(dir, { recursive: true, force: true })
})

const open = (extra: Partial<Parameters<typeof JournaledDocument.open<Doc>>[0]> = {}) => JournaledDocument.open<Doc>({ dir, name: 'doc', defaults, ...extra })

describe('JournaledDocument', () => {
  it('puts, removes, sets and appends; the changes survive a reopen; values are frozen', async () => {
    const d = await open()
    await d.apply([{ op: 'put', path: 'items', value: { _id: 'a', n: 1 } }])
    await d.apply([{ op: 'put', path: 'items', value: { _id: 'b', n: 2 } }, { op: 'put', path: 'items', value: { _id: 'a', n: 3 } }])
    await d.apply([{ op: 'remove', path: 'items', id: 'b' }, { op: 'set', path: ['settings', 'nested', 'b'], value: 7 }])
    await Promise.all(['x', 'y', 'z'].map((v) => d.apply([{ op: 'append', path: 'log', value: v, keep: 2 }])))
    expect(d.data).toEqual({ items: [{ _id: 'a', n: 3 }], log: ['y', 'z'], settings: { nested: { b: 7 } } })
    expect(Object.isFrozen(d.data.items[0])).toBe(true)
    expect(() => ((d.data.items[0] as { n: number }).n = 9)).toThrow()
    await d.close()
    const again = await open()
    expect(again.data).toEqual({ items: [{ _id: 'a', n: 3 }], log: ['y', 'z'], settings: { nested: { b: 7 } } })
    await again.close()
  })

  it('a write costs one journal line, not the whole document', async () => {
    const d = await open({ compactAfterBytes: 1 << 30 })
    for (let i = 0; i < 200; i++) await d.apply([{ op: 'put', path: 'items', value: { _id: `i${i}`, n: i } }])
    const before = (await stat(d.journalFile)).size
    await d.apply([{ op: 'put', path: 'items', value: { _id: 'one-more', n: 0 } }])
    expect((await stat(d.journalFile)).size - before).toBeLessThan(120)
    await d.close()
  })

  it('folds the journal into the snapshot; lines at or below the snapshot seq are never replayed', async () => {
    const d = await open({ compactAfterBytes: 200 })
    for (let i = 0; i < 20; i++) await d.apply([{ op: 'put', path: 'items', value: { _id: 'x', n: i } }])
    await d.close()
    const snap = JSON.parse(await readFile(join(dir, 'doc.json'), 'utf8'))
    expect(snap.$seq).toBeGreaterThan(0)
    // A crash after the snapshot but before the journal was cut: an old line comes back.
    await appendFile(join(dir, 'doc.journal'), JSON.stringify({ seq: 1, ops: [{ op: 'put', path: 'items', value: { _id: 'x', n: -1 } }] }) + '\n')
    const again = await open()
    expect(again.data.items).toEqual([{ _id: 'x', n: 19 }])
    await again.close()
  })

  it('a torn last journal line is cut off; a damaged line elsewhere or a bad snapshot stops the open untouched', async () => {
    const d = await open()
    await d.apply([{ op: 'put', path: 'items', value: { _id: 'a', n: 1 } }])
    await d.close()
    await appendFile(join(dir, 'doc.journal'), '{"seq":2,"ops":[{"op":"put"')
    const again = await open()
    expect(again.data.items).toEqual([{ _id: 'a', n: 1 }])
    await again.apply([{ op: 'put', path: 'items', value: { _id: 'b', n: 2 } }])
    await again.close()
    expect((await open().then(async (x) => (await x.close(), x.data.items))).map((i) => i._id)).toEqual(['a', 'b'])

    await writeFile(join(dir, 'doc.journal'), 'garbage\n{"seq":9,"ops":[]}\n')
    await expect(open()).rejects.toBeInstanceOf(DataFileError)
    await writeFile(join(dir, 'doc.journal'), '')
    await writeFile(join(dir, 'doc.json'), '{"items": [')
    await expect(open()).rejects.toThrow(/doc\.json is unreadable .* left untouched/)
    expect(await readFile(join(dir, 'doc.json'), 'utf8')).toBe('{"items": [')
  })

  it('a failed write (ENOSPC) takes the change back in memory, leaves no partial line, and later writes work', async () => {
    const d = await open()
    await d.apply([{ op: 'put', path: 'items', value: { _id: 'kept', n: 1 } }])
    injectFileFaults({ beforeWrite: (file) => { if (file.endsWith('doc.journal')) throw enospc(file); return Infinity } })
    await expect(d.apply([{ op: 'put', path: 'items', value: { _id: 'lost', n: 2 } }])).rejects.toMatchObject({ code: 'ENOSPC' })
    expect(d.data.items.map((i) => i._id)).toEqual(['kept'])
    injectFileFaults(null)
    await d.apply([{ op: 'put', path: 'items', value: { _id: 'later', n: 3 } }])
    await d.close()
    const again = await open()
    expect(again.data.items.map((i) => i._id)).toEqual(['kept', 'later'])
    expect((await readFile(join(dir, 'doc.journal'), 'utf8')).split('\n').filter(Boolean).every((l) => JSON.parse(l).seq > 0)).toBe(true)
    await again.close()
  })

  it('a short write half way through a line is cut back to the last good line', async () => {
    const d = await open()
    await d.apply([{ op: 'put', path: 'items', value: { _id: 'kept', n: 1 } }])
    const good = await readFile(join(dir, 'doc.journal'), 'utf8')
    let writes = 0
    // The OS takes ten bytes, then the disk is full.
    injectFileFaults({ beforeWrite: (file, bytes) => { if (!file.endsWith('doc.journal')) return bytes; writes++; if (writes === 1) return 10; throw enospc(file) } })
    await expect(d.apply([{ op: 'put', path: 'items', value: { _id: 'lost', n: 2 } }])).rejects.toMatchObject({ code: 'ENOSPC' })
    expect(await readFile(join(dir, 'doc.journal'), 'utf8')).toBe(good)
    injectFileFaults(null)
    await d.close()
  })

  it('a short write that the OS completes on the next call is continued, not taken for success', async () => {
    const d = await open()
    let first = true
    injectFileFaults({ beforeWrite: (file, bytes) => (file.endsWith('doc.journal') && first ? ((first = false), 5) : bytes) })
    await d.apply([{ op: 'put', path: 'items', value: { _id: 'whole', n: 1 } }])
    injectFileFaults(null)
    await d.close()
    expect((await open()).data.items).toEqual([{ _id: 'whole', n: 1 }])
  })

  it('validates what it loads and names the problem', async () => {
    await writeFile(join(dir, 'doc.json'), JSON.stringify({ items: [{ _id: 'a', n: 'one' }] }))
    await expect(
      open({
        validate: (d) => {
          for (const [i, item] of d.items.entries()) if (typeof item.n !== 'number') throw new Error(`items[${i}] (_id ${item._id}): n must be a number`)
        }
      })
    ).rejects.toThrow(/items\[0\] \(_id a\): n must be a number/)
  })
})

describe('indexOfId (positions of records in frozen lists)', () => {
  const rec = (id: string) => ({ _id: id })
  it('finds records after appends, replacements and removals, and nothing that is not there', () => {
    let root: { items: Array<{ _id: string; v?: number }> } = { items: [rec('a'), rec('b')] }
    const a0 = root.items
    root = applyOp(root, { op: 'put', path: 'items', value: rec('c') })
    root = applyOp(root, { op: 'put', path: 'items', value: { _id: 'b', v: 2 } })
    expect(indexOfId(root.items, 'c')).toBe(2)
    expect(root.items[indexOfId(root.items, 'b')]).toEqual({ _id: 'b', v: 2 })
    expect(indexOfId(a0, 'c')).toBe(-1)
    root = applyOp(root, { op: 'remove', path: 'items', id: 'a' })
    expect(indexOfId(root.items, 'c')).toBe(1)
    expect(indexOfId(root.items, 'a')).toBe(-1)
  })

  it('stays right for two branches grown from the same list (a write given up, then another)', () => {
    const base = { items: [rec('a')] }
    indexOfId(base.items, 'a')
    const one = applyOp(applyOp(base, { op: 'put', path: 'items', value: rec('x') }), { op: 'put', path: 'items', value: rec('y') })
    const two = applyOp(applyOp(base, { op: 'put', path: 'items', value: rec('y') }), { op: 'put', path: 'items', value: rec('x') })
    expect(['a', 'x', 'y'].map((id) => indexOfId(one.items, id))).toEqual([0, 1, 2])
    expect(['a', 'y', 'x'].map((id) => indexOfId(two.items, id))).toEqual([0, 1, 2])
  })
})
