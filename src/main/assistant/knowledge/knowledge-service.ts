/**
 * The shop's knowledge (docs/assistant.md "Knowledge"): entries written by hand or imported from a
 * file (.txt, .md, .pdf, .docx, a question,answer .csv), each stored with the passages it is cut into
 * (./chunker.ts) in one transaction, listed and searched (`q`), and embedded in the background when
 * the assistant has an embedding model (./embedder.ts).
 */
import { readFile } from 'node:fs/promises'
import type { Clock } from '../../clock'
import { newObjectId } from '../../ids'
import type { KnowledgeRepo } from '../../store/repos'
import { snippet } from '../../store/repos/search-terms'
import { AppError, invalid, notFound } from '../../errors'
import type { KnowledgeBody, KnowledgeEntry, KnowledgeListItem } from '../../../shared/schemas/assistant'
import type { PagedT } from '../../../shared/operations/table'
import { chunkKnowledge } from './chunker'
import { readDocument } from './document-reader'

/** The largest file an import reads (bytes). */
export const IMPORT_MAX_BYTES = 25 * 1024 * 1024
/** The longest content an entry holds (characters; the schema's limit). */
export const CONTENT_MAX_CHARS = 2_000_000

type Inst = { _id: string }

function tooLarge(name: string): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `${name} is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MB; split it into smaller files.`)
}

export interface KnowledgeServiceDeps {
  knowledge: KnowledgeRepo
  clock: Clock
  /** A change to an instance's knowledge (the embedder fills the new passages' vectors). */
  onChange?: (instanceId: string) => void
}

export class KnowledgeService {
  constructor(private readonly deps: KnowledgeServiceDeps) {}

  /** Stores a new entry. */
  async create(inst: Inst, body: KnowledgeBody, file?: { name: string }): Promise<KnowledgeEntry> {
    const at = new Date(this.deps.clock.now()).toISOString()
    const entry: KnowledgeEntry = {
      _id: newObjectId(),
      instance_id: inst._id,
      title: body.title.trim() || 'Untitled',
      content: body.content,
      source: file ? 'file' : 'manual',
      file_name: file?.name ?? null,
      chunks: 0,
      createdAt: at,
      updatedAt: at
    }
    const stored = await this.deps.knowledge.create(entry, chunkKnowledge(entry.title, entry.content))
    this.deps.onChange?.(inst._id)
    return { ...stored }
  }

  /** Changes an entry's title and/or content (its passages are cut again). 404 for another instance's or an unknown id. */
  async update(inst: Inst, id: string, body: Partial<KnowledgeBody>): Promise<KnowledgeEntry> {
    const current = await this.get(inst, id)
    const next: KnowledgeEntry = {
      ...current,
      ...(body.title !== undefined ? { title: body.title.trim() || current.title } : {}),
      ...(body.content !== undefined ? { content: body.content } : {}),
      updatedAt: new Date(this.deps.clock.now()).toISOString()
    }
    const stored = await this.deps.knowledge.replace(inst._id, next, chunkKnowledge(next.title, next.content))
    if (!stored) throw notFound('Knowledge entry')
    this.deps.onChange?.(inst._id)
    return { ...stored }
  }

  async remove(inst: Inst, id: string): Promise<void> {
    if (!(await this.deps.knowledge.remove(inst._id, id))) throw notFound('Knowledge entry')
    this.deps.onChange?.(inst._id)
  }

  async get(inst: Inst, id: string): Promise<KnowledgeEntry> {
    const entry = await this.deps.knowledge.owned(inst._id, id)
    if (!entry) throw notFound('Knowledge entry')
    return { ...entry }
  }

  /** A page of the entries, newest change first; with `q`, those matching and an excerpt around the match. */
  async list(inst: Inst, page: { q?: string; offset?: number; limit?: number }): Promise<PagedT<KnowledgeListItem>> {
    const q = page.q?.trim() || undefined
    const { items, total } = await this.deps.knowledge.list(inst._id, { ...(q ? { q } : {}), offset: page.offset ?? 0, limit: page.limit ?? 100 })
    return {
      total,
      items: items.map(({ entry, text }) => {
        const cut = q ? snippet(text, q, 200) : { snippet: text.length > 200 ? `${text.slice(0, 200)}…` : text, highlights: [] }
        return { ...entry, excerpt: cut.snippet, highlights: cut.highlights }
      })
    }
  }

  /** {@link import} of an uploaded file in `path` (the HTTP face's multipart), read once its size is known to fit. */
  async importFile(inst: Inst, file: { path: string; name: string; size: number }, title?: string): Promise<KnowledgeEntry> {
    if (file.size > IMPORT_MAX_BYTES) throw tooLarge(file.name)
    return this.import(inst, { name: file.name, bytes: await readFile(file.path) }, title)
  }

  /**
   * Imports a file as a new entry titled `title` (default: the file's name without its extension).
   * 413 over {@link IMPORT_MAX_BYTES}, 415 for a kind it does not take, 400 for one it cannot read or
   * whose text is longer than an entry holds.
   */
  async import(inst: Inst, file: { name: string; bytes: Uint8Array }, title?: string): Promise<KnowledgeEntry> {
    if (file.bytes.byteLength > IMPORT_MAX_BYTES) throw tooLarge(file.name)
    const { content } = await readDocument(file.name, file.bytes)
    if (content.length > CONTENT_MAX_CHARS) throw invalid('file', `holds ${content.length.toLocaleString('en')} characters of text; an entry holds at most ${CONTENT_MAX_CHARS.toLocaleString('en')} (split the file)`)
    const name = file.name.replace(/^.*[\\/]/, '')
    return this.create(inst, { title: (title?.trim() || name.replace(/\.[^.]+$/, '') || name).slice(0, 200), content }, { name })
  }
}
