/**
 * Contacts as CSV (docs/design.md §17): reading an import with a column mapping and a
 * report of the rows refused and why, and writing an export. Pure; csv-parse and csv-stringify do the
 * CSV itself. Exported cells a spreadsheet would run as formulas (`=`, `+`, `-`, `@` …: names and notes
 * come from customers) get a leading `'` (OWASP "CSV Injection").
 */
import { parse } from 'csv-parse/sync'
import { stringify } from 'csv-stringify/sync'
import type { Contact } from '../../../shared/schemas/records'
import { invalid } from '../../errors'
import { contactNumber } from './contact-number'

/** Which CSV column holds each field (header names, any case). Unmapped fields are looked up by usual names. */
export interface ColumnMapping {
  name?: string
  number?: string
  labels?: string
  notes?: string
}

/** A row that became (or would become) a contact. */
export interface ImportRow {
  /** The file's line number (the header is line 1). */
  row: number
  name: string
  number: string
  labels: string[]
  notes: string
}

export interface ParsedImport {
  rows: ImportRow[]
  refused: { row: number; reason: string }[]
}

/** Rows one import may hold. */
export const IMPORT_MAX_ROWS = 10_000

const USUAL: Record<keyof ColumnMapping, string[]> = {
  name: ['name', 'full name', 'contact', 'contact name', 'first name', 'nombre', 'nome'],
  number: ['number', 'phone', 'phone number', 'mobile', 'whatsapp', 'telephone', 'tel', 'cell', 'numero', 'número', 'telefono', 'teléfono'],
  labels: ['labels', 'label', 'tags', 'tag'],
  notes: ['notes', 'note', 'comment', 'comments']
}

/**
 * Reads a CSV of contacts (header row first; `,` or `;` separated). Throws 400 when the file is not
 * CSV, has no number column, or more than {@link IMPORT_MAX_ROWS} rows; a bad row is refused with its
 * reason and the others are read.
 */
export function parseContactsCsv(csv: string, mapping: ColumnMapping = {}): ParsedImport {
  let records: string[][]
  try {
    const firstLine = csv.slice(0, csv.indexOf('\n') >>> 0)
    const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ','
    const rows: unknown = parse(csv, { delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, trim: true })
    records = rows as string[][]
  } catch (err) {
    throw invalid('csv', `could not be read as CSV: ${(err as Error).message}`)
  }
  const [header, ...body] = records
  if (!header) throw invalid('csv', 'is empty; the first line must name the columns (e.g. name,number)')
  if (body.length > IMPORT_MAX_ROWS) throw invalid('csv', `has ${body.length} rows; at most ${IMPORT_MAX_ROWS} per import`)
  const columns = header.map((h) => h.trim().toLowerCase())
  const column = (field: keyof ColumnMapping): number => {
    const wanted = mapping[field]
    if (wanted !== undefined) {
      const i = columns.indexOf(wanted.trim().toLowerCase())
      if (i < 0) throw invalid(`mapping.${field}`, `names a column the file does not have ("${wanted}"; it has ${header.join(', ')})`)
      return i
    }
    return columns.findIndex((c) => USUAL[field].includes(c))
  }
  const at = { name: column('name'), number: column('number'), labels: column('labels'), notes: column('notes') }
  if (at.number < 0) throw invalid('mapping.number', `is needed: no column is called number or phone (the file has ${header.join(', ')})`)
  const rows: ImportRow[] = []
  const refused: ParsedImport['refused'] = []
  const seen = new Map<string, number>()
  body.forEach((cells, i) => {
    const row = i + 2
    const cell = (j: number) => (j >= 0 ? (cells[j] ?? '').trim() : '')
    const raw = cell(at.number)
    if (!raw) return refused.push({ row, reason: 'no number' })
    let number: string
    try {
      number = contactNumber(raw)
    } catch {
      return refused.push({ row, reason: `"${raw}" is not a phone number with its country code` })
    }
    const earlier = seen.get(number)
    if (earlier !== undefined) return refused.push({ row, reason: `the same number as line ${earlier}` })
    seen.set(number, row)
    const name = cell(at.name).slice(0, 100) || number
    const labels = cell(at.labels).split(/[;|]/).map((l) => l.trim().slice(0, 40)).filter(Boolean).slice(0, 20)
    rows.push({ row, name, number, labels, notes: cell(at.notes).slice(0, 2000) })
  })
  return { rows, refused }
}

/** The contacts as a CSV file (UTF-8, header row), group titles by id. */
export function contactsCsv(contacts: readonly Contact[], groupTitle: (id: string) => string | undefined): string {
  const header = ['name', 'number', 'group', 'labels', 'notes', 'opted_out', 'last_seen_at', 'createdAt']
  const rows = contacts.map((c) => [c.name, c.number, c.group_id ? (groupTitle(c.group_id) ?? '') : '', c.labels.join(';'), c.notes, c.opted_out ? 'yes' : 'no', c.last_seen_at ?? '', c.createdAt])
  return stringify([header, ...rows], { escape_formulas: true })
}
