/**
 * Pure: splits a server-sent events byte stream (already decoded to text) into `data` payloads.
 * Handles frames split across chunks, CRLF line ends, comments (`: ping`) and multi-line data.
 */
export class SseParser {
  private buffer = ''

  /** Feeds a chunk; answers the complete events' data fields it finished. */
  push(chunk: string): string[] {
    this.buffer += chunk.replace(/\r\n?/g, '\n')
    const out: string[] = []
    let end: number
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const frame = this.buffer.slice(0, end)
      this.buffer = this.buffer.slice(end + 2)
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      if (data.length) out.push(data.join('\n'))
    }
    return out
  }
}
