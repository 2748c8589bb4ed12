/**
 * Real documents for the knowledge import's tests, made here rather than kept as binary fixtures: a
 * PDF (PDF 1.4, one text object per page, Helvetica, a correct cross-reference table) and a Word
 * .docx (the Office Open XML parts a document needs, zipped by yazl). pdf.js and mammoth read them as
 * they read files made by Word or a PDF printer.
 */
import yazl from 'yazl'

/** `s` as a PDF literal string. */
function pdfString(s: string): string {
  return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`
}

/** A PDF whose pages hold `pages` (each a list of lines, ASCII). */
export function makePdf(pages: string[][]): Buffer {
  const objects: string[] = []
  const pageIds: number[] = []
  // 1: catalog, 2: pages, 3: font, then a page and its content stream per page.
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>'
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'
  let next = 4
  for (const lines of pages) {
    const pageId = next++
    const contentId = next++
    pageIds.push(pageId)
    const stream = ['BT', '/F1 12 Tf', '14 TL', '72 720 Td', ...lines.map((l, i) => (i === 0 ? `${pdfString(l)} Tj` : `T* ${pdfString(l)} Tj`)), 'ET'].join('\n')
    objects[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentId} 0 R >>`
    objects[contentId] = `<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`
  }
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`
  let out = '%PDF-1.4\n'
  const offsets: number[] = []
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out)
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`
  }
  const xref = Buffer.byteLength(out)
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, 'latin1')
}

function xml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!)
}

/** A .docx whose body is `paragraphs` (a paragraph starting with `# ` gets the Heading1 style). */
export async function makeDocx(paragraphs: string[]): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  zip.addBuffer(
    Buffer.from(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    ),
    '[Content_Types].xml'
  )
  zip.addBuffer(
    Buffer.from(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'
    ),
    '_rels/.rels'
  )
  const body = paragraphs
    .map((p) => (p.startsWith('# ') ? `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t xml:space="preserve">${xml(p.slice(2))}</w:t></w:r></w:p>` : `<w:p><w:r><w:t xml:space="preserve">${xml(p)}</w:t></w:r></w:p>`))
    .join('')
  zip.addBuffer(
    Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`),
    'word/document.xml'
  )
  zip.end()
  const chunks: Buffer[] = []
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c)
  return Buffer.concat(chunks)
}
