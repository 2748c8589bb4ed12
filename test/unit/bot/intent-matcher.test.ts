import { describe, expect, it } from 'vitest'
import {
  asciiFastPathActive,
  findKeyword,
  KeywordIndex,
  tokenize,
  tokenizeWithSegmenter
} from '../../../src/main/bot/intent-matcher'
import { mulberry32 } from '../../helpers/seeded-random'

function indexOf(entries: [id: string, keywords: string[], order?: number][]): KeywordIndex<string> {
  const idx = new KeywordIndex<string>()
  entries.forEach(([id, kws, order], i) => idx.add(id, kws, order ?? i, `value-${id}`))
  return idx
}

const hit = (idx: KeywordIndex<string>, text: string) => idx.match(text)?.entryId ?? null

describe('tokenize', () => {
  it('splits words at Unicode boundaries and keeps punctuation and emoji as tokens', () => {
    expect(tokenize("hi! don't e-mail 3.5")).toEqual(['hi', '!', "don't", 'e', '-', 'mail', '3.5'])
    expect(tokenize('thanks👍 👨‍👩‍👧 👍🏽')).toEqual(['thanks', '👍', '👨‍👩‍👧', '👍🏽'])
  })

  it('keeps Devanagari combining marks and Arabic words whole', () => {
    expect(tokenize('नमस्ते दोस्त')).toEqual(['नमस्ते', 'दोस्त'])
    expect(tokenize('مرحبا بك')).toEqual(['مرحبا', 'بك'])
  })

  it('splits scripts written without spaces into characters with their marks', () => {
    expect(tokenize('wifi密码')).toEqual(['wifi', '密', '码'])
    expect(tokenize('สวัสดี')).toEqual(['ส', 'วั', 'ส', 'ดี'])
  })
})

describe('ASCII fast path', () => {
  it('is active on this runtime', () => {
    expect(asciiFastPathActive).toBe(true)
  })

  it('tokenises printable ASCII exactly like Intl.Segmenter', () => {
    // Seeded LCG; an alphabet dense in the characters UAX #29 treats specially.
    let seed = 7
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    const alphabet = "ab1 2_.,;:'!-+@#$%&*()[]{}\"/?<>=~`^|"
    for (let n = 0; n < 5000; n++) {
      let s = ''
      const len = 1 + Math.floor(rnd() * 12)
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(rnd() * alphabet.length)]
      s = s.replace(/ +/g, ' ').trim()
      expect(tokenize(s), JSON.stringify(s)).toEqual(tokenizeWithSegmenter(s))
    }
  })
})

describe('KeywordIndex: what matches', () => {
  it('matches the whole message as exact and a contained word as not exact', () => {
    const idx = indexOf([['greet', ['hi']]])
    expect(idx.match('Hi')).toEqual({ value: 'value-greet', entryId: 'greet', keyword: 'hi', exact: true })
    expect(idx.match('oh HI there')).toEqual({ value: 'value-greet', entryId: 'greet', keyword: 'hi', exact: false })
  })

  it('matches a word with punctuation around it', () => {
    const idx = indexOf([['greet', ['hi']]])
    for (const t of ['hi!', '¡hi!', '(hi)', 'hi, how are you?', '"hi"', 'well...hi']) expect(hit(idx, t), t).toBe('greet')
    expect(idx.match('hi!')?.exact).toBe(false)
  })

  it('does not match inside a longer word', () => {
    const idx = indexOf([['greet', ['hi']]])
    for (const t of ['this', 'high', 'chin', 'hi5', 'hi_there', "hi's"]) expect(hit(idx, t), t).toBeNull()
  })

  it('matches multi-word phrases only as a contiguous phrase', () => {
    const idx = indexOf([['hours', ['opening hours']]])
    expect(hit(idx, 'What are your   OPENING hours?')).toBe('hours')
    expect(hit(idx, 'opening the hours')).toBeNull()
    expect(hit(idx, 'hours opening')).toBeNull()
    expect(hit(idx, 'opening, hours')).toBeNull()
    expect(hit(idx, 'reopening hours')).toBeNull()
  })

  it('treats keywords with punctuation literally', () => {
    const idx = indexOf([['cpp', ['c++']], ['mail', ['e-mail']]])
    expect(hit(idx, 'do you teach c++?')).toBe('cpp')
    expect(hit(idx, 'do you teach c?')).toBeNull()
    expect(hit(idx, 'send an e-mail')).toBe('mail')
    expect(hit(idx, 'send an email')).toBeNull()
  })

  it('keeps accents significant but ignores case and composition form', () => {
    const idx = indexOf([['cafe', ['café']]])
    expect(hit(idx, 'un CAFÉ por favor')).toBe('cafe')
    expect(hit(idx, 'un cafe\u0301 por favor')).toBe('cafe')
    expect(hit(idx, 'un cafe por favor')).toBeNull()
  })

  it('folds ß and fullwidth text', () => {
    const idx = indexOf([['street', ['strasse']]])
    expect(hit(idx, 'Welche Straße?')).toBe('street')
    expect(hit(idx, 'ＳＴＲＡＳＳＥ')).toBe('street')
  })

  it('matches Devanagari words with combining marks and virama', () => {
    const idx = indexOf([['namaste', ['नमस्ते']], ['kya', ['क्या']]])
    expect(hit(idx, 'नमस्ते दोस्त')).toBe('namaste')
    expect(hit(idx, 'दोस्त, नमस्ते!')).toBe('namaste')
    expect(hit(idx, 'आप क्या कर रहे हो')).toBe('kya')
    // A prefix of the word (नमस without the matra/virama cluster) is not the word.
    expect(hit(indexOf([['x', ['नमस']]]), 'नमस्ते दोस्त')).toBeNull()
  })

  it('matches Arabic words and not inside longer words', () => {
    const idx = indexOf([['hello', ['مرحبا']]])
    expect(hit(idx, 'مرحبا، كيف حالك؟')).toBe('hello')
    expect(idx.match('مرحبا')?.exact).toBe(true)
    expect(hit(idx, 'مرحباكم')).toBeNull()
  })

  it('matches CJK keywords as a contiguous run of characters, also inside longer words', () => {
    const idx = indexOf([['hello', ['你好']], ['order', ['订']], ['menu', ['メニュー']]])
    expect(hit(idx, '你好，我想订餐')).toBe('hello')
    expect(hit(idx, '我想订餐')).toBe('order')
    expect(hit(idx, 'メニューを見せて')).toBe('menu')
    expect(hit(idx, '你们好')).toBeNull() // not contiguous
    expect(hit(idx, '好你')).toBeNull()
  })

  it('matches a mixed Latin/CJK keyword', () => {
    const idx = indexOf([['wifi', ['wifi密码']]])
    expect(hit(idx, '请问wifi密码是什么')).toBe('wifi')
    expect(hit(idx, '请问wifi的密码')).toBeNull()
  })

  it('matches Thai keywords without splitting a character from its marks', () => {
    const idx = indexOf([['hello', ['สวัสดี']], ['half', ['ว']]])
    expect(hit(idx, 'สวัสดีครับ')).toBe('hello')
    // 'ว' alone is not a character of 'สวัสดี' (there it carries a vowel mark: 'วั').
    expect(hit(indexOf([['half', ['ว']]]), 'สวัสดี')).toBeNull()
  })

  it('matches Hangul as whole words, as UAX #29 segments it', () => {
    const idx = indexOf([['menu', ['메뉴']]])
    expect(hit(idx, '메뉴 보여주세요')).toBe('menu')
    expect(hit(idx, '메뉴를 보여주세요')).toBeNull() // inflected form: list it as its own keyword
  })

  it('matches emoji as their own tokens, with or without the emoji variation selector', () => {
    const idx = indexOf([['like', ['👍']], ['love', ['❤️']], ['family', ['👨‍👩‍👧']]])
    expect(hit(idx, 'thanks👍')).toBe('like')
    expect(hit(idx, '👍')).toBe('like')
    expect(hit(idx, 'i ❤ it')).toBe('love')
    expect(hit(idx, 'i \u2764\uFE0F it')).toBe('love')
    expect(hit(idx, 'our 👨‍👩‍👧 trip')).toBe('family')
    // A skin-tone variant and a ZWJ sequence that merely contains the emoji are different emoji.
    expect(hit(idx, '👍🏽')).toBeNull()
    expect(hit(indexOf([['man', ['👨']]]), '👨‍👩‍👧')).toBeNull()
  })

  it('does not match empty or whitespace-only messages', () => {
    const idx = indexOf([['greet', ['hi']]])
    expect(idx.match('')).toBeNull()
    expect(idx.match('   ')).toBeNull()
  })
})

describe('KeywordIndex: which match wins', () => {
  it('prefers exact over contained, even over a longer contained keyword', () => {
    const idx = indexOf([['long', ['price list please']], ['short', ['price list']]])
    expect(hit(idx, 'price list')).toBe('short')
    expect(idx.match('price list')?.exact).toBe(true)
    expect(hit(idx, 'the price list please')).toBe('long')
  })

  it('prefers the longest contained keyword regardless of position', () => {
    const idx = indexOf([['a', ['order']], ['b', ['order status']], ['c', ['status']]])
    expect(hit(idx, 'what is my order status now')).toBe('b')
    expect(idx.match('what is my order status now')?.keyword).toBe('order status')
    expect(hit(idx, 'status of my order')).toBe('c') // 'status' (6) beats the older 'order' (5)
    expect(hit(idx, 'my order is late')).toBe('a')
  })

  it('prefers the oldest record at equal length, also for the same keyword in several records', () => {
    const idx = new KeywordIndex<string>()
    idx.add('newer', ['menu'], 200, 'n')
    idx.add('older', ['menu'], 100, 'o')
    expect(idx.match('menu please')?.entryId).toBe('older')
    expect(idx.match('menu')?.entryId).toBe('older')
    const idx2 = new KeywordIndex<string>()
    idx2.add('x', ['abcd'], 5, 'x')
    idx2.add('y', ['wxyz'], 1, 'y')
    expect(idx2.match('wxyz abcd')?.entryId).toBe('y')
  })

  it('breaks a tie of equal order by insertion', () => {
    const idx = new KeywordIndex<string>()
    idx.add('first', ['menu'], 1, 'f')
    idx.add('second', ['menu'], 1, 's')
    expect(idx.match('menu')?.entryId).toBe('first')
  })
})

describe('KeywordIndex: incremental maintenance', () => {
  it('adds and removes entries without a rebuild', () => {
    const idx = new KeywordIndex<number>()
    idx.add('a', ['pizza', 'pasta'], 1, 1)
    idx.add('b', ['pizza'], 2, 2)
    expect(idx.size).toBe(2)
    expect(idx.match('pizza please')?.entryId).toBe('a')
    expect(idx.remove('a')).toBe(true)
    expect(idx.remove('a')).toBe(false)
    expect(idx.size).toBe(1)
    expect(idx.match('pizza please')?.entryId).toBe('b')
    expect(idx.match('pasta please')).toBeNull()
    idx.remove('b')
    expect(idx.match('pizza')).toBeNull()
  })

  it('replaces an entry on re-add, keeping its place among equal orders', () => {
    const idx = new KeywordIndex<string>()
    idx.add('a', ['hello'], 1, 'a1')
    idx.add('b', ['hello'], 1, 'b1')
    idx.add('a', ['hello', 'hey'], 1, 'a2')
    expect(idx.match('hello')).toMatchObject({ entryId: 'a', value: 'a2' })
    expect(idx.match('hey you')?.entryId).toBe('a')
    idx.replace('a', ['hey'], 1, 'a3')
    expect(idx.match('hello')?.entryId).toBe('b')
    expect(idx.get('a')).toEqual({ keywords: ['hey'], order: 1, value: 'a3' })
  })

  it('updates values in place and re-indexes on keyword or order changes', () => {
    const idx = new KeywordIndex<string>()
    idx.add('a', ['menu'], 10, 'v1')
    idx.add('b', ['menu'], 20, 'w')
    expect(idx.update('a', { value: 'v2' })).toBe(true)
    expect(idx.match('menu')?.value).toBe('v2')
    idx.update('a', { order: 30 })
    expect(idx.match('menu')?.entryId).toBe('b')
    idx.update('a', { keywords: ['carte'] })
    expect(idx.match('carte')).toMatchObject({ entryId: 'a', value: 'v2' })
    expect(idx.update('missing', { value: 'x' })).toBe(false)
  })

  it('prunes removed phrases so shared prefixes still work', () => {
    const idx = new KeywordIndex<string>()
    idx.add('long', ['good morning team'], 1, 'l')
    idx.add('short', ['good morning'], 2, 's')
    idx.remove('long')
    expect(idx.match('good morning team')?.entryId).toBe('short')
    idx.add('long', ['good morning team'], 1, 'l')
    idx.remove('short')
    expect(idx.match('good morning')).toBeNull()
    expect(idx.match('good morning team')?.entryId).toBe('long')
  })

  it('clears everything and normalises keywords on add', () => {
    const idx = new KeywordIndex<string>()
    idx.add('a', ['  HeLLo   There ', '', 'hello there'], 1, 'a')
    expect(idx.get('a')?.keywords).toEqual(['hello there'])
    idx.clear()
    expect(idx.size).toBe(0)
    expect(idx.match('hello there')).toBeNull()
  })

  it('rejects a non-finite order', () => {
    expect(() => new KeywordIndex<string>().add('a', ['x'], Number.NaN, 'a')).toThrow(TypeError)
  })
})

describe('findKeyword', () => {
  it('finds the best keyword of a small list', () => {
    expect(findKeyword('Yes please', ['yes', 'no'])).toEqual({ keyword: 'yes', exact: false })
    expect(findKeyword('NO', ['yes', 'no'])).toEqual({ keyword: 'no', exact: true })
    expect(findKeyword('nope', ['yes', 'no'])).toBeNull()
    expect(findKeyword('anything', [])).toBeNull()
  })
})

describe('KeywordIndex: agrees with a brute-force reference under random edits', () => {
  it('gives the same winner as checking every keyword of every entry', () => {
    const rnd = mulberry32(42)
    const words = ['a', 'b', 'ab', 'cd', 'menu', 'price', 'नमस्ते', '你', '好', '👍', 'x!']
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!
    const phrase = () => Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(words)).join(' ')
    const idx = new KeywordIndex<string>()
    const live = new Map<string, { keywords: string[]; order: number; seq: number }>()
    let seq = 0
    const reference = (text: string) => {
      const msg = tokenize(text.toLowerCase())
      const whole = text.toLowerCase()
      let best: { id: string; kw: string; exact: boolean; order: number; seq: number } | null = null
      for (const [id, e] of live) {
        for (const kw of e.keywords) {
          const kt = tokenize(kw)
          const exact = kw === whole
          let contained = false
          for (let i = 0; !contained && kt.length > 0 && i + kt.length <= msg.length; i++)
            contained = kt.every((t, j) => msg[i + j] === t)
          if (!exact && !contained) continue
          const c = { id, kw, exact, order: e.order, seq: e.seq }
          if (
            !best ||
            (c.exact && !best.exact) ||
            (c.exact === best.exact &&
              ([...c.kw].length > [...best.kw].length ||
                ([...c.kw].length === [...best.kw].length &&
                  (c.order < best.order || (c.order === best.order && c.seq < best.seq)))))
          )
            best = c
        }
      }
      // Two keywords of one entry can tie; either is a correct answer, so compare their length.
      return best && { entryId: best.id, length: [...best.kw].length, exact: best.exact }
    }
    let matched = 0
    for (let step = 0; step < 3000; step++) {
      const id = `e${Math.floor(rnd() * 40)}`
      const r = rnd()
      if (r < 0.45) {
        const keywords = [...new Set(Array.from({ length: 1 + Math.floor(rnd() * 3) }, phrase))]
        const order = Math.floor(rnd() * 10)
        idx.add(id, keywords, order, id)
        live.set(id, { keywords, order, seq: live.get(id)?.seq ?? seq++ })
      } else if (r < 0.6) {
        idx.remove(id)
        live.delete(id)
      } else {
        const text = Array.from({ length: 1 + Math.floor(rnd() * 6) }, phrase).join(rnd() < 0.5 ? ' ' : '')
        const got = idx.match(text)
        const want = reference(text)
        expect(got && { entryId: got.entryId, length: [...got.keyword].length, exact: got.exact }, text).toEqual(want)
        if (want) matched++
      }
    }
    // The random texts must exercise the matching path, not only misses.
    expect(matched).toBeGreaterThan(300)
  })
})
