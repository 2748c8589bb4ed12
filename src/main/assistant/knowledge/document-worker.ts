/**
 * The worker thread that reads an imported file's text (./document-reader.ts starts it, one per
 * import): PDF with `unpdf` (pdf.js), DOCX with `mammoth`, a question,answer CSV with `csv-parse`,
 * plain text and Markdown decoded. Parsing a large document takes long stretches of CPU, so it never
 * runs on the thread that serves the API and the WhatsApp sockets (docs/assistant.md "Knowledge").
 *
 * Kept free of the app's own modules and of TypeScript that needs compiling (enums, parameter
 * properties): run from source, Node strips its types itself; built, it is its own entry
 * (electron.vite.config.ts, out/main/document-worker.js).
 *
 * Message in: `{kind, bytes}`; out: `{ok: true, text}`, `{ok: true, rows}` (CSV) or `{ok: false, error}`.
 */
import { parentPort } from 'node:worker_threads'

type Kind = 'pdf' | 'docx' | 'csv' | 'text'
type Answer = { ok: true; text: string } | { ok: true; rows: Array<{ question: string; answer: string }> } | { ok: false; error: string }

/** Header names of the question and answer columns (any case). */
const QUESTION_NAMES = ['question', 'questions', 'q', 'pregunta', 'pergunta', 'domanda', 'frage', 'vraag', 'faq']
const ANSWER_NAMES = ['answer', 'answers', 'a', 'respuesta', 'resposta', 'risposta', 'antwort', 'antwoord', 'reply']

/** Text of UTF-8 (a BOM dropped), UTF-16 with a BOM, else Windows-1252 (what spreadsheets save on Windows). */
function decode(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2))
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2))
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return new TextDecoder('windows-1252').decode(bytes)
  }
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { extractText, getDocumentProxy } = await import('unpdf')
  // verbosity 0: pdf.js's warnings about a damaged file are not the app's log; the error says it.
  const pdf = await getDocumentProxy(bytes, { verbosity: 0 })
  const { text } = await extractText(pdf, { mergePages: false })
  // One page, one block: the chunker cuts long pages at sentence ends.
  return text.map((page) => page.replace(/[ \t]+\n/g, '\n').trim()).filter(Boolean).join('\n\n')
}

async function docxText(bytes: Uint8Array): Promise<string> {
  const mammoth = (await import('mammoth')).default
  const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })
  return value.replace(/\n{3,}/g, '\n\n').trim()
}

async function csvRows(bytes: Uint8Array): Promise<Array<{ question: string; answer: string }>> {
  const { parse } = await import('csv-parse/sync')
  const text = decode(bytes)
  const firstLine = text.slice(0, text.indexOf('\n') >>> 0)
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : firstLine.includes('\t') && !firstLine.includes(',') ? '\t' : ','
  const records: string[][] = parse(text, { delimiter, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true })
  if (records.length === 0) return []
  const header = records[0]!.map((c) => c.toLowerCase())
  let q = header.findIndex((c) => QUESTION_NAMES.includes(c))
  let a = header.findIndex((c) => ANSWER_NAMES.includes(c))
  const hasHeader = q >= 0 && a >= 0
  if (!hasHeader) {
    q = 0
    a = 1
  }
  return records
    .slice(hasHeader ? 1 : 0)
    .map((r) => ({ question: r[q] ?? '', answer: r[a] ?? '' }))
    .filter((r) => r.question !== '' && r.answer !== '')
}

async function read(kind: Kind, bytes: Uint8Array): Promise<Answer> {
  try {
    if (kind === 'pdf') return { ok: true, text: await pdfText(bytes) }
    if (kind === 'docx') return { ok: true, text: await docxText(bytes) }
    if (kind === 'csv') return { ok: true, rows: await csvRows(bytes) }
    return { ok: true, text: decode(bytes).replace(/^\uFEFF/, '') }
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) }
  }
}

parentPort?.once('message', (msg: { kind: Kind; bytes: Uint8Array }) => {
  void read(msg.kind, msg.bytes).then((answer) => parentPort!.postMessage(answer))
})
