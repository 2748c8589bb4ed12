import { describe, expect, it } from 'vitest'
import { keywordList, normalizeText, splitKeywords } from '../../../src/shared/domain/keywords'
import { requireKeywords } from '../../../src/main/services/keyword-record'

describe('normalizeText', () => {
  it('folds case, NFKC compatibility forms and whitespace', () => {
    expect(normalizeText('  Hello\t\n  WORLD  ')).toBe('hello world')
    expect(normalizeText('ＨＥＬＬＯ')).toBe('hello') // fullwidth
    expect(normalizeText('ﬁle')).toBe('file') // ligature
    expect(normalizeText('a\u00A0b\u200Bc')).toBe('a b c') // NBSP and zero-width space
  })

  it('applies full case folding: ß, ẞ and final sigma', () => {
    expect(normalizeText('Straße')).toBe('strasse')
    expect(normalizeText('STRASSE')).toBe('strasse')
    expect(normalizeText('ẞ')).toBe('ss')
    expect(normalizeText('ΣΟΦΟΣ')).toBe(normalizeText('σοφος'))
    expect(normalizeText('σοφος')).toBe('σοφοσ')
  })

  it('composes canonically equivalent forms but keeps accents significant', () => {
    expect(normalizeText('cafe\u0301')).toBe('café')
    expect(normalizeText('Café')).toBe('café')
    expect(normalizeText('café')).not.toBe(normalizeText('cafe'))
  })

  it('unifies typographic apostrophes and drops emoji variation selectors', () => {
    expect(normalizeText('Don’t')).toBe("don't")
    expect(normalizeText('\u2764\uFE0F')).toBe('\u2764')
  })

  it('keeps ZWJ (emoji sequences, Indic spelling) and non-Latin text intact', () => {
    expect(normalizeText('👨‍👩‍👧')).toBe('👨‍👩‍👧')
    expect(normalizeText('नमस्ते')).toBe('नमस्ते')
    expect(normalizeText('مرحبا')).toBe('مرحبا')
  })
})

describe('splitKeywords', () => {
  it('splits, normalises, drops empties and duplicates in first-seen order', () => {
    expect(splitKeywords(' Hi , hello,,HI ,  good   morning ,')).toEqual(['hi', 'hello', 'good morning'])
  })

  it('accepts Arabic, ideographic and fullwidth commas', () => {
    expect(splitKeywords('مرحبا،سلام')).toEqual(['مرحبا', 'سلام'])
    expect(splitKeywords('你好、菜单，价格')).toEqual(['你好', '菜单', '价格'])
  })

  it('gives nothing for empty input', () => {
    expect(splitKeywords('')).toEqual([])
    expect(splitKeywords(' , ,')).toEqual([])
    expect(splitKeywords(undefined)).toEqual([])
  })
})

describe('one rule for every face', () => {
  it('shows the chips the bot matches: same splits, the owner’s spelling', () => {
    for (const field of ['hi،hello', '你好、菜单', 'Hi , HELLO', 'Ｍenu,price']) {
      expect(keywordList(field).map(normalizeText)).toEqual(splitKeywords(field))
    }
    expect(keywordList('hi،hello')).toEqual(['hi', 'hello'])
  })

  it('refuses a field that can never match (a lone separator) the way validation does', () => {
    expect(splitKeywords('、')).toEqual([])
    expect(keywordList('、')).toEqual([])
    expect(() => requireKeywords('keyword', '、')).toThrow(/keyword/)
    expect(() => requireKeywords('keyword', 'hi、')).not.toThrow()
  })
})
