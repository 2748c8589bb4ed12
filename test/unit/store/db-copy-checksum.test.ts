/**
 * The row lines db:copy hashes (src/main/store/copy/checksum.ts): the same for a row read from SQLite
 * and from PostgreSQL whatever the column order, and different for any changed value.
 */
import { describe, expect, it } from 'vitest'
import { documentChecksum, rowLine, TableDigest } from '../../../src/main/store/copy'

describe('db:copy checksums', () => {
  it('ignores the column order and writes blobs, bigints and booleans one way', () => {
    expect(rowLine({ b: 2, a: 'x' })).toBe(rowLine({ a: 'x', b: 2 }))
    expect(rowLine({ m: new Uint8Array([0, 255]) })).toBe(rowLine({ m: Buffer.from([0, 255]) }))
    expect(rowLine({ n: 1_700_000_000_000n })).toBe(rowLine({ n: 1_700_000_000_000 }))
    expect(rowLine({ f: true })).toBe(rowLine({ f: 1 }))
    expect(rowLine({ v: undefined })).toBe(rowLine({ v: null }))
  })

  it('tells apart what differs', () => {
    expect(rowLine({ t: '1' })).not.toBe(rowLine({ t: 1 }))
    expect(rowLine({ t: '' })).not.toBe(rowLine({ t: null }))
    expect(rowLine({ t: 'hi' })).not.toBe(rowLine({ t: new Uint8Array([104, 105]) }))
    // Composed and decomposed é: the bytes differ, so the stored text does (no Unicode folding).
    expect(rowLine({ t: '\u00e9' })).not.toBe(rowLine({ t: 'e\u0301' }))
    const sum = (rows: Array<Record<string, unknown>>) => {
      const d = new TableDigest()
      for (const r of rows) d.add(r)
      return d.hex()
    }
    expect(sum([{ a: 1 }, { a: 2 }])).not.toBe(sum([{ a: 2 }, { a: 1 }]))
    expect(documentChecksum({ a: 1 })).toBe(documentChecksum(JSON.parse('{"a":1}')))
  })
})
