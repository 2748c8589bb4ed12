import { describe, expect, it } from 'vitest'
import { parseWhatsAppFormat } from '../../../src/shared/domain/wa-format'

describe('WhatsApp formatting', () => {
  it('reads bold, italic, strikethrough, inline code and monospace blocks', () => {
    expect(parseWhatsAppFormat('Our *best* pizza is _really_ ~cheap~ `today`')).toEqual([
      'Our ',
      { tag: 'b', children: ['best'] },
      ' pizza is ',
      { tag: 'i', children: ['really'] },
      ' ',
      { tag: 's', children: ['cheap'] },
      ' ',
      { tag: 'code', children: ['today'] }
    ])
    expect(parseWhatsAppFormat('Menu:\n```1. Margherita *8€*```\nthanks')).toEqual(['Menu:\n', { tag: 'pre', children: ['1. Margherita *8€*'] }, '\nthanks'])
  })

  it('nests markers and closes them before punctuation', () => {
    expect(parseWhatsAppFormat('*_Open now_*!')).toEqual([{ tag: 'b', children: [{ tag: 'i', children: ['Open now'] }] }, '!'])
  })

  it('leaves text literal where WhatsApp does', () => {
    for (const text of ['2*3*4 = 24', 'a * b * c', 'snake_case_name', '*not closed', '*across\nlines*', '** empty', 'price: 5 * 2']) {
      expect(parseWhatsAppFormat(text)).toEqual([text])
    }
    expect(parseWhatsAppFormat('')).toEqual([])
  })
})
