/**
 * A real local webhook receiver for tests: a node:http server on 127.0.0.1 that records every request
 * and answers what `respond` says (status, headers, body, optional delay). Can be stopped and started
 * again on the same port (a receiver that is down, then back).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
  json: any
}

export interface Answer {
  status?: number
  headers?: Record<string, string>
  body?: string
  /** Real milliseconds before answering. */
  delayMs?: number
}

export interface Receiver {
  url: string
  port: number
  requests: ReceivedRequest[]
  /** Decides each answer; `n` counts requests from 1. Default: 200. */
  respond: (req: ReceivedRequest, n: number) => Answer
  /** Stops listening (connections refused until start()). */
  stop(): Promise<void>
  /** Listens again on the same port. */
  start(): Promise<void>
}

/** Starts a receiver on `port` (0 = any free port); it answers 200 until `respond` is replaced. */
export async function startReceiver(port = 0): Promise<Receiver> {
  let server: Server | null = null
  const r: Receiver = {
    url: '',
    port,
    requests: [],
    respond: () => ({ status: 200 }),
    async start() {
      server = createServer((req, res) => {
        const chunks: Buffer[] = []
        req.on('data', (c: Buffer) => chunks.push(c))
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8')
          let json: unknown
          try {
            json = JSON.parse(body)
          } catch {
            json = undefined
          }
          const rec: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json }
          r.requests.push(rec)
          const answer = r.respond(rec, r.requests.length)
          const send = () => {
            if (res.destroyed) return
            res.writeHead(answer.status ?? 200, answer.headers ?? {})
            res.end(answer.body ?? '')
          }
          if (answer.delayMs) setTimeout(send, answer.delayMs).unref()
          else send()
        })
      })
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject)
        server!.listen(r.port, '127.0.0.1', () => resolve())
      })
      r.port = (server.address() as AddressInfo).port
      r.url = `http://127.0.0.1:${r.port}/hook`
    },
    async stop() {
      const s = server
      server = null
      if (!s) return
      s.closeAllConnections()
      await new Promise<void>((resolve) => s.close(() => resolve()))
    }
  }
  await r.start()
  return r
}

/** A port nothing listens on (for a receiver that is down from the start). */
export async function freePort(): Promise<number> {
  const r = await startReceiver()
  await r.stop()
  return r.port
}

/** Verifies a request's Standard Webhooks signature with `secret`; answers the parsed body (throws otherwise). */
export function verify(req: ReceivedRequest, secret: string): any {
  return new Webhook(secret).verify(req.body, req.headers as Record<string, string>)
}
