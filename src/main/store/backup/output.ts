/**
 * The one place a backup archive is written to a file, so a full disk can be produced on demand:
 * {@link injectBackupWriteFault} makes a write fail as the OS does (ENOSPC) once the file would pass a
 * given size — after part of the file has really been written, as on a disk that fills up mid-way.
 */
import { createWriteStream } from 'node:fs'
import { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { FILE_MODE } from '../config/durable-json-file'

let writeFault: ((file: string, bytes: number) => Error | null) | null = null

/**
 * Test seam: `fault(file, bytes)` answers the error that a write making `file` `bytes` long fails
 * with (null: none). Pass null to remove it.
 */
export function injectBackupWriteFault(fault: ((file: string, bytes: number) => Error | null) | null): void {
  writeFault = fault
}

/** A new file (refused if it exists) written through the fault seam; 0600. Resolves writes once written, closes on end. */
export function openBackupFile(file: string): Writable {
  const out = createWriteStream(file, { flags: 'wx', mode: FILE_MODE })
  let bytes = 0
  const write = (chunk: Buffer, done: (err?: Error | null) => void) => {
    const fault = writeFault?.(file, bytes + chunk.length)
    if (fault) return done(fault)
    bytes += chunk.length
    // The callback carries the file's own errors (a real ENOSPC) and waits for the bytes to be written.
    out.write(chunk, done)
  }
  return new Writable({
    highWaterMark: 1 << 20,
    write: (chunk: Buffer, _enc, done) => write(chunk, done),
    // Chunks that queued while the file was busy go in one write.
    writev: (chunks, done) => write(Buffer.concat(chunks.map((c) => c.chunk as Buffer)), done),
    final(done) {
      // Done once the file is closed: the caller may then fsync and rename it (Windows cannot rename an open file).
      out.end()
      finished(out).then(() => done(), done)
    },
    destroy(err, done) {
      if (out.closed) return done(err)
      out.once('close', () => done(err))
      out.destroy()
    }
  })
}
