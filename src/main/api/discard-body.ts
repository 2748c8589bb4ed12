/**
 * Reading what is left of a refused request's body, so that the client gets the answer.
 *
 * A server that answers (say 413) before the body is read and then closes the connection leaves
 * clients that write the whole body before reading — Node's fetch, many HTTP libraries — with EPIPE
 * or "socket hang up" instead of the answer. Reading the rest and throwing it away lets every client
 * read the envelope; the caps keep a client from holding the server with an endless body.
 */
import type { IncomingMessage } from 'node:http'

export interface DiscardCaps {
  /** The largest body (all of it, as declared or as read) worth reading to its end. */
  maxBytes: number
  /** Give up when the rest has not arrived in this many milliseconds. */
  timeoutMs: number
}

/**
 * Reads and discards the rest of `req`'s body. Resolves true once the body ended (the connection
 * can carry the answer and stay open), false when it is not worth waiting for: declared or grown past
 * `maxBytes`, slower than `timeoutMs`, or the client went away (answer, then close the connection).
 */
export function discardRest(req: IncomingMessage, caps: DiscardCaps): Promise<boolean> {
  if (req.complete || req.readableEnded) return Promise.resolve(true)
  if (req.destroyed) return Promise.resolve(false)
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > caps.maxBytes) return Promise.resolve(false)
  return new Promise((resolve) => {
    // What the body parser read before giving up is not counted: the cap is a bound, not a measure.
    let read = 0
    const finish = (ended: boolean) => {
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('close', onClose)
      req.off('error', onClose)
      if (!ended) req.pause()
      resolve(ended)
    }
    const onData = (chunk: Buffer) => {
      read += chunk.length
      if (read > caps.maxBytes) finish(false)
    }
    const onEnd = () => finish(true)
    const onClose = () => finish(req.complete)
    const timer = setTimeout(() => finish(false), caps.timeoutMs)
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('close', onClose)
    req.on('error', onClose)
    req.resume()
  })
}
