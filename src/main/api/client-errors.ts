/**
 * Answers to requests Node's HTTP parser refuses before any route sees them (the server's
 * `clientError`, Fastify's `clientErrorHandler`): headers larger than the server takes (431), a client
 * too slow to send its request (408), a request that is not HTTP (400). Each answer is the API's error
 * envelope (docs/design.md §4), not the framework's own body, and names the limit that was passed.
 * Written on the raw socket, which is then closed, as Node does: the request cannot be read further.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'

/** The envelope of an error refused by the parser (status, body). Pure. */
export function clientErrorAnswer(code: string | undefined, headerLimitBytes: number = maxHeaderSize): { status: number; body: string } {
  const envelope = (status: number, errorCode: string, message: string) => ({ status, body: JSON.stringify({ status: false, message, error: { code: errorCode } }) })
  if (code === 'HPE_HEADER_OVERFLOW') {
    return envelope(
      431,
      'HEADERS_TOO_LARGE',
      `The request's headers (with its URL) are larger than the limit of ${Math.round(headerLimitBytes / 1024)} KB. Send long values in the body instead of the query string or a header.`
    )
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return envelope(408, 'REQUEST_TIMEOUT', 'The request was not received in time; send it again.')
  return envelope(400, 'VALIDATION_ERROR', 'The request is not valid HTTP.')
}

/** Fastify's `clientErrorHandler`: the envelope on the socket, then the socket closed. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const { status, body } = clientErrorAnswer(err.code)
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(err)
}
