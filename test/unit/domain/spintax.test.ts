import { describe, expect, it } from 'vitest'
import { expandSpintax } from '../../../src/main/domain/spintax'
import { displayName, renderReply } from '../../../src/main/domain/reply-template'

/** A random() that returns the given values in turn and records how often it was called. */
function seq(...values: number[]) {
  let i = 0
  const f = () => {
    const v = values[i++]
    if (v === undefined) throw new Error('random() called more often than expected')
    return v
  }
  return Object.assign(f, { calls: () => i })
}

describe('expandSpintax', () => {
  it('picks the alternative random() points at', () => {
    expect(expandSpintax('{a|b|c}', seq(0))).toBe('a')
    expect(expandSpintax('{a|b|c}', seq(0.34))).toBe('b')
    expect(expandSpintax('{a|b|c}', seq(0.999))).toBe('c')
    expect(expandSpintax('x {a|b} y {c|d} z', seq(0.9, 0.1))).toBe('x b y c z')
  })

  it('expands nested groups, only along the chosen branch', () => {
    const r1 = seq(0.9, 0.9)
    expect(expandSpintax('{Hi|{Hello|Hey} there}!', r1)).toBe('Hey there!')
    expect(r1.calls()).toBe(2)
    const r2 = seq(0.1)
    expect(expandSpintax('{Hi|{Hello|Hey} there}!', r2)).toBe('Hi!')
    expect(r2.calls()).toBe(1)
    expect(expandSpintax('{a|{b|{c|d}}}', seq(0.9, 0.9, 0.9))).toBe('d')
  })

  it('allows empty alternatives', () => {
    expect(expandSpintax('Hi{|!}', seq(0))).toBe('Hi')
    expect(expandSpintax('Hi{|!}', seq(0.9))).toBe('Hi!')
    expect(expandSpintax('{|}', seq(0.5))).toBe('')
  })

  it('leaves unbalanced braces and stray pipes as literal text without throwing', () => {
    expect(expandSpintax('{a|b', seq())).toBe('{a|b')
    expect(expandSpintax('a|b}', seq())).toBe('a|b}')
    expect(expandSpintax('}{', seq())).toBe('}{')
    expect(expandSpintax('{a|{b|c}', seq(0.9))).toBe('{a|c')
    expect(expandSpintax('{x|y}}', seq(0))).toBe('x}')
    expect(expandSpintax('1 | 2', seq())).toBe('1 | 2')
  })

  it('keeps a group without alternatives literally, braces included', () => {
    expect(expandSpintax('code {SAVE10} now', seq())).toBe('code {SAVE10} now')
    expect(expandSpintax('{}', seq())).toBe('{}')
    expect(expandSpintax('{ {a|b} }', seq(0.9))).toBe('{ b }')
  })

  it('produces every alternative with Math.random', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 300; i++) seen.add(expandSpintax('{a|b|c}'))
    expect([...seen].sort()).toEqual(['a', 'b', 'c'])
  })

  it('survives a misbehaving random()', () => {
    expect(expandSpintax('{a|b}', () => 1)).toBe('b')
    expect(expandSpintax('{a|b}', () => Number.NaN)).toBe('a')
    expect(expandSpintax('{a|b}', () => -3)).toBe('a')
  })
})

describe('renderReply', () => {
  it('replaces [name] with the push name, any letter case', () => {
    expect(renderReply('Hi [name], [Name]? [NAME]!', { name: 'Asha', number: '15550001' })).toBe('Hi Asha, Asha? Asha!')
  })

  it('falls back to the number when there is no push name', () => {
    expect(renderReply('Hi [name]', { name: null, number: '15550001' })).toBe('Hi 15550001')
    expect(renderReply('Hi [name]', { name: '   ', number: '15550001' })).toBe('Hi 15550001')
    expect(renderReply('Hi [name]', { number: '15550001@s.whatsapp.net' })).toBe('Hi 15550001')
    expect(displayName({ number: '15550001:12@s.whatsapp.net' })).toBe('15550001')
  })

  it('expands spintax first and never interprets the name', () => {
    expect(renderReply('{Hi|Hello} [name]', { name: 'Bo', number: '1' }, seq(0.9))).toBe('Hello Bo')
    expect(renderReply('{Hi [name]|Yo}', { name: 'Bo', number: '1' }, seq(0))).toBe('Hi Bo')
    expect(renderReply('Hi [name]', { name: '{a|b} $& $1', number: '1' }, seq())).toBe('Hi {a|b} $& $1')
  })

  it('leaves other brackets alone', () => {
    expect(renderReply('[names] [nam] [ name ]', { name: 'Bo', number: '1' })).toBe('[names] [nam] [ name ]')
  })
})
