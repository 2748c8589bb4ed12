import { describe, expect, it } from 'vitest'
import { resolveOptionReply } from '../../../src/main/bot/option-reply'

const OPTIONS = [{ title: 'Menu', id: 'menu' }, { title: 'Site', id: 'url-1' }, { title: 'Call us' }]

describe('resolveOptionReply', () => {
  it('resolves the option number, with an optional dot or parenthesis', () => {
    expect(resolveOptionReply('1', OPTIONS)).toBe(OPTIONS[0])
    expect(resolveOptionReply(' 2. ', OPTIONS)).toBe(OPTIONS[1])
    expect(resolveOptionReply('3)', OPTIONS)).toBe(OPTIONS[2])
    expect(resolveOptionReply('３', OPTIONS)).toBe(OPTIONS[2]) // fullwidth digit
  })

  it('resolves native digits', () => {
    expect(resolveOptionReply('٢', OPTIONS)).toBe(OPTIONS[1]) // Arabic-Indic
    expect(resolveOptionReply('३', OPTIONS)).toBe(OPTIONS[2]) // Devanagari
  })

  it('rejects numbers out of range', () => {
    expect(resolveOptionReply('0', OPTIONS)).toBeNull()
    expect(resolveOptionReply('4', OPTIONS)).toBeNull()
    expect(resolveOptionReply('-1', OPTIONS)).toBeNull()
  })

  it('resolves the title, case- and space-insensitive', () => {
    expect(resolveOptionReply('menu', OPTIONS)).toBe(OPTIONS[0])
    expect(resolveOptionReply('  CALL   us ', OPTIONS)).toBe(OPTIONS[2])
  })

  it('resolves the displayed line, number and title', () => {
    expect(resolveOptionReply('2. Site', OPTIONS)).toBe(OPTIONS[1])
    expect(resolveOptionReply('3 call us', OPTIONS)).toBe(OPTIONS[2])
    expect(resolveOptionReply('2. Menu', OPTIONS)).toBeNull() // number and title disagree
  })

  it('does not treat text that merely mentions a title as a press', () => {
    expect(resolveOptionReply('show me the menu', OPTIONS)).toBeNull()
    expect(resolveOptionReply('1 more thing', OPTIONS)).toBeNull()
    expect(resolveOptionReply('', OPTIONS)).toBeNull()
    expect(resolveOptionReply('1', [])).toBeNull()
  })

  it('matches a numeric title before reading it as a position', () => {
    const opts = [{ title: '10' }, { title: '20' }]
    expect(resolveOptionReply('20', opts)).toBe(opts[1])
    expect(resolveOptionReply('2', opts)).toBe(opts[1])
  })
})
