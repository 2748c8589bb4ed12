/**
 * The knowledge import's reading and cutting (src/main/assistant/knowledge/): real PDF, DOCX, CSV,
 * Markdown and text files read in the worker thread, refusals with reasons, and the passages the
 * chunker makes (headings carried, a question and its answer kept together, long text cut at sentences).
 */
import { describe, expect, it } from 'vitest'
import { readDocument, documentKind } from '../../../src/main/assistant/knowledge/document-reader'
import { chunkKnowledge, MAX_CHARS, qaContent, TARGET_CHARS } from '../../../src/main/assistant/knowledge/chunker'
import { makeDocx, makePdf } from '../../support/documents'

const utf8 = (s: string) => new Uint8Array(Buffer.from(s))

describe('reading imported files (in a worker thread)', () => {
  it('reads a PDF page by page', async () => {
    const pdf = makePdf([['Opening hours', 'We open at 9:00 from Monday to Saturday.'], ['Delivery', 'We deliver within 5 km for free.']])
    const { kind, content } = await readDocument('shop.pdf', pdf)
    expect(kind).toBe('pdf')
    expect(content).toMatch(/Opening hours\s+We open at 9:00 from Monday to Saturday\./)
    expect(content.split('\n\n')).toHaveLength(2)
    expect(content).toContain('We deliver within 5 km for free.')
  })

  it('reads a Word document with its paragraphs', async () => {
    const docx = await makeDocx(['# Returns', 'You may return any item within 30 days.', 'Bring the receipt.'])
    const { kind, content } = await readDocument('policies.docx', docx)
    expect(kind).toBe('docx')
    expect(content).toBe('Returns\n\nYou may return any item within 30 days.\n\nBring the receipt.')
  })

  it('reads a question,answer CSV with or without a header, in , or ; and Windows-1252', async () => {
    const withHeader = await readDocument('faq.csv', utf8('Question;Answer\n"Do you deliver?";"Yes, within 5 km."\nOpen on Sunday?;From 11:00\n;missing question\n'))
    expect(withHeader.content).toBe('Q: Do you deliver?\nA: Yes, within 5 km.\n\nQ: Open on Sunday?\nA: From 11:00')
    const bare = await readDocument('faq.csv', utf8('Do you have vegan pizza?,"Yes: the Ortolana, with vegan cheese."\n'))
    expect(bare.content).toBe('Q: Do you have vegan pizza?\nA: Yes: the Ortolana, with vegan cheese.')
    const latin1 = await readDocument('faq.csv', new Uint8Array(Buffer.from('question,answer\nCafé?,Sí\n', 'latin1')))
    expect(latin1.content).toBe('Q: Café?\nA: Sí')
  })

  it('reads text and Markdown as they are, UTF-8 BOM dropped', async () => {
    expect((await readDocument('notes.md', utf8('\uFEFF# Menu\n\nPizza and pasta.'))).content).toBe('# Menu\n\nPizza and pasta.')
    expect((await readDocument('notes.txt', utf8('  plain  '))).content).toBe('plain')
  })

  it('refuses what it does not take, with the reason', async () => {
    expect(() => documentKind('photo.png', utf8('x'))).toThrow(/takes .txt, .md, .pdf, .docx, .csv/)
    expect(() => documentKind('fake.pdf', utf8('hello'))).toThrow(/does not look like a PDF/)
    expect(() => documentKind('old.docx', utf8('\xd0\xcf'))).toThrow(/does not look like a Word .docx/)
    await expect(readDocument('empty.txt', utf8('   '))).rejects.toThrow(/file is empty/)
    await expect(readDocument('blank.pdf', makePdf([[]]))).rejects.toThrow(/has no text \(a scanned PDF/)
    await expect(readDocument('broken.pdf', utf8('%PDF-1.4 nothing else'))).rejects.toThrow(/could not be read/)
    await expect(readDocument('nothing.csv', utf8('question,answer\n'))).rejects.toThrow(/no question,answer rows/)
  })

  it('gives up on a file that takes longer than the limit', async () => {
    const big = makePdf(Array.from({ length: 200 }, (_, i) => [`Page ${i}`, 'x'.repeat(80)]))
    await expect(readDocument('slow.pdf', big, 1)).rejects.toThrow(/longer than 0 s|longer than/)
  })
})

describe('cutting an entry into passages', () => {
  it('joins short paragraphs and starts a passage at each heading, which its passages carry', () => {
    const chunks = chunkKnowledge('Shop', '# Hours\n\nMon–Fri 9–18.\n\nSat 10–14.\n\n# Delivery\n\nFree above 20 €.')
    expect(chunks).toEqual([
      { position: 0, title: 'Shop', body: 'Hours\nMon–Fri 9–18.\n\nSat 10–14.' },
      { position: 1, title: 'Shop', body: 'Delivery\nFree above 20 €.' }
    ])
  })

  it('keeps each question with its answer, alone', () => {
    const content = qaContent([
      { question: 'Open on Sunday?', answer: 'From 11:00.' },
      { question: 'Do you deliver?', answer: 'Yes.' }
    ])
    expect(chunkKnowledge('FAQ', content).map((c) => c.body)).toEqual(['Q: Open on Sunday?\nA: From 11:00.', 'Q: Do you deliver?\nA: Yes.'])
  })

  it('cuts long text at sentence ends into passages no longer than the limit, losing no word', () => {
    const sentence = (i: number) => `Sentence number ${i} tells one more thing about the pizzas we bake.`
    const text = Array.from({ length: 200 }, (_, i) => sentence(i)).join(' ')
    const chunks = chunkKnowledge('Long', text)
    expect(chunks.length).toBeGreaterThan(text.length / MAX_CHARS)
    expect(chunks.every((c) => c.body.length <= MAX_CHARS)).toBe(true)
    expect(chunks.every((c) => c.body.endsWith('bake.'))).toBe(true)
    expect(chunks.map((c) => c.body).join(' ')).toBe(text)
    expect(chunks.slice(0, -1).every((c) => c.body.length > TARGET_CHARS / 2)).toBe(true)
    // A "word" longer than the limit is cut hard rather than kept whole.
    expect(chunkKnowledge('x', 'y'.repeat(4000)).map((c) => c.body.length)).toEqual([MAX_CHARS, MAX_CHARS, 1000])
  })
})
