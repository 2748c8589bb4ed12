/**
 * An imported file's text (docs/assistant.md "Knowledge"): `.txt`, `.md`, `.pdf`, `.docx` and a
 * question,answer `.csv`, by its name and checked against its first bytes. The parsing runs in a
 * worker thread (./document-worker.ts), one per import, ended when done or after a time limit, so a
 * 300-page PDF never stalls the thread serving the API and the WhatsApp sockets.
 */
import { Worker } from 'node:worker_threads'
import { AppError, invalid } from '../../errors'
import { qaContent } from './chunker'

/** The kinds of file an import takes. */
export type DocumentKind = 'pdf' | 'docx' | 'csv' | 'text'

/** The extensions an import takes, for messages and the UI's file picker. */
export const IMPORT_EXTENSIONS = ['.txt', '.md', '.pdf', '.docx', '.csv'] as const

/** How long a file may take to read (ms). */
export const READ_TIMEOUT_MS = 60_000

/** The kind of `fileName` by its extension and first bytes; a 415 for anything else. */
export function documentKind(fileName: string, bytes: Uint8Array): DocumentKind {
  const ext = /\.[^.]+$/.exec(fileName.toLowerCase())?.[0] ?? ''
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b)
  if (ext === '.pdf') {
    if (!starts(0x25, 0x50, 0x44, 0x46)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${fileName} does not look like a PDF (it does not start with %PDF).`)
    return 'pdf'
  }
  if (ext === '.docx') {
    if (!starts(0x50, 0x4b, 0x03, 0x04)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${fileName} does not look like a Word .docx document (a .doc from before 2007 is not read: save it as .docx).`)
    return 'docx'
  }
  if (ext === '.csv') return 'csv'
  if (ext === '.txt' || ext === '.md' || ext === '.markdown') return 'text'
  throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${fileName}: an import takes ${IMPORT_EXTENSIONS.join(', ')} files.`)
}

/**
 * Where the worker's script is: beside this module when run from source (Node strips the
 * TypeScript), else the bundle's own entry in out/main/ (this module may be in out/main/chunks/).
 * The name is a variable so that no bundler rewrites it as an asset.
 */
function workerUrl(): URL {
  const here = import.meta.url
  const name = here.endsWith('.ts') ? './document-worker.ts' : here.includes('/chunks/') ? '../document-worker.js' : './document-worker.js'
  return new URL(name, here)
}

/**
 * The text of a file: its content for a knowledge entry (a CSV's rows as `Q: …` / `A: …` pairs).
 * Throws 415 for a file it does not take, 400 for one it cannot read (damaged, empty, no text: a
 * scanned PDF holds images only), after `timeoutMs` too.
 */
export async function readDocument(fileName: string, bytes: Uint8Array, timeoutMs = READ_TIMEOUT_MS): Promise<{ kind: DocumentKind; content: string }> {
  const kind = documentKind(fileName, bytes)
  const answer = await inWorker(kind, bytes, timeoutMs)
  if (!answer.ok) throw invalid('file', `could not be read (${answer.error})`)
  const content = 'rows' in answer ? qaContent(answer.rows) : answer.text.trim()
  if (!content) {
    const why = kind === 'pdf' ? 'has no text (a scanned PDF holds images only: run it through OCR first)' : kind === 'csv' ? 'has no question,answer rows' : 'is empty'
    throw invalid('file', why)
  }
  return { kind, content }
}

type WorkerAnswer = { ok: true; text: string } | { ok: true; rows: Array<{ question: string; answer: string }> } | { ok: false; error: string }

function inWorker(kind: DocumentKind, bytes: Uint8Array, timeoutMs: number): Promise<WorkerAnswer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl())
    let settled = false
    const finish = (fn: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void worker.terminate()
      fn()
    }
    const timer = setTimeout(() => finish(() => resolve({ ok: false, error: `it took longer than ${Math.round(timeoutMs / 1000)} s` })), timeoutMs)
    worker.once('message', (answer: WorkerAnswer) => finish(() => resolve(answer)))
    worker.once('error', (err: Error) => finish(() => resolve({ ok: false, error: err.message })))
    worker.once('exit', (code) => finish(() => reject(new Error(`the document reader stopped (exit ${code}) before answering`))))
    // A copy goes over: the caller keeps its buffer.
    worker.postMessage({ kind, bytes: new Uint8Array(bytes) })
  })
}
