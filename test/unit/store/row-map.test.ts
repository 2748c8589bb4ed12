import { describe, expect, it } from 'vitest'
import { columnOf, rowMap } from '../../../src/main/store/repos/row-map'

interface Rec {
  _id: string
  instance_id: string
  chatId: string
  note?: string
  tags: string[]
  extra?: { a: number }
  current: { n: number } | null
  done: boolean
  seen?: boolean
  createdAt: string
  __v: number
}
interface Row {
  id: string
  instance_id: string
  chat_id: string
  note: string | null
  tags: string
  extra: string | null
  current: string | null
  done: number
  seen: number | null
  created_at: string
  v: number
}

const rows = rowMap<Rec, Row>({
  _id: 'as is',
  instance_id: 'as is',
  chatId: 'as is',
  note: 'optional',
  tags: 'json',
  extra: 'optional json',
  current: 'json',
  done: 'flag',
  seen: 'optional flag',
  createdAt: 'as is',
  __v: 'as is'
})

describe('rowMap', () => {
  it('names columns by the one rule: _id → id, __v → v, camelCase → snake_case, snake_case kept', () => {
    expect(['_id', '__v', 'createdAt', 'chatId', 'instance_id', 'next_run_at', 'completedAt'].map(columnOf)).toEqual(['id', 'v', 'created_at', 'chat_id', 'instance_id', 'next_run_at', 'completed_at'])
  })

  it('stores each field by its rule and reads the same record back', () => {
    const full: Rec = { _id: 'a1', instance_id: 'i1', chatId: 'c@s', note: 'hi', tags: ['x'], extra: { a: 1 }, current: { n: 2 }, done: true, seen: false, createdAt: '2026-01-01T00:00:00.000Z', __v: 3 }
    const row = rows.toRow(full)
    expect(row).toEqual({ id: 'a1', instance_id: 'i1', chat_id: 'c@s', note: 'hi', tags: '["x"]', extra: '{"a":1}', current: '{"n":2}', done: 1, seen: 0, created_at: '2026-01-01T00:00:00.000Z', v: 3 })
    expect(rows.fromRow(row)).toEqual(full)
  })

  it('an absent optional field is NULL and stays absent; a null JSON value is NULL and stays null', () => {
    const bare: Rec = { _id: 'a2', instance_id: 'i1', chatId: 'c@s', tags: [], current: null, done: false, createdAt: 't', __v: 0 }
    const row = rows.toRow(bare)
    expect(row).toMatchObject({ note: null, extra: null, seen: null, current: null, done: 0 })
    const back = rows.fromRow(row)
    expect(back).toEqual(bare)
    expect(Object.keys(back)).not.toContain('note')
    expect(Object.keys(back)).not.toContain('seen')
  })

  it('keeps only the spec’s fields and columns: other keys of a record or a row are left out', () => {
    const withMore = { _id: 'a3', instance_id: 'i1', chatId: 'c', tags: [], current: null, done: false, createdAt: 't', __v: 0, stray: 1 } as Rec
    expect(Object.keys(rows.toRow(withMore))).not.toContain('stray')
    const rowWithSeq = { ...rows.toRow(withMore), seq: 9 } as Row
    expect(Object.keys(rows.fromRow(rowWithSeq))).not.toContain('seq')
  })
})

describe('rowMap specs the compiler refuses (checked by `npm run typecheck`)', () => {
  it('a field left out, or one whose column the row lacks', () => {
    // @ts-expect-error -- `__v` is not named
    const missing = () => rowMap<Pick<Rec, '_id' | '__v'>, Pick<Row, 'id' | 'v'>>({ _id: 'as is' })
    // @ts-expect-error -- `chatId` has no column `chat_id`
    const noColumn = () => rowMap<Pick<Rec, '_id' | 'chatId'>, Pick<Row, 'id'>>({ _id: 'as is', chatId: 'as is' })
    expect([missing, noColumn].every((f) => typeof f === 'function')).toBe(true)
  })
})
