/**
 * The one place a backup archive is written to a file, so a full disk can be produced on demand:
 * {@link injectBackupWriteFault} gives a file room for so many bytes; the write that passes it writes
 * what fits and fails as the OS does (ENOSPC), as on a disk that fills up mid-way.
 */
import { createWriteStream } from 'node:fs'
import { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { enospc, FILE_MODE } from '../config/durable-json-file'

let roomFor: ((file: string) => number | null) | null = null

/**
 * Test seam: `room(file)` answers how many bytes the disk has room for in `file` (null: no limit).
 * Pass null to remove it.
 */
export function injectBackupWriteFault(room: ((file: string) => number | null) | null): void {
  roomFor = room
}

/** A new file (refused if it exists) written through the fault seam; 0600. Resolves writes once written, closes on end. */
export function openBackupFile(file: string): Writable {
  const out = createWriteStream(file, { flags: 'wx', mode: FILE_MODE })
  const room = roomFor?.(file) ?? null
  let bytes = 0
  const write = (chunk: Buffer, done: (err?: Error | null) => void) => {
    if (room !== null && bytes + chunk.length > room) {
      const fits = chunk.subarray(0, Math.max(0, room - bytes))
      bytes += fits.length
      return out.write(fits, (err) => done(err ?? enospc(file)))
    }
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
