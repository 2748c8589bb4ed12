/**
 * The protocol test server's HTTP control API (test support): drives the fake phones and contacts of
 * a server running in another process (the benchmarks, `npm run wa-test-server`). JSON in and out;
 * errors answer `{error}` with 400/404 (408: a wait timed out).
 *
 * - `GET  /control`                          → `{url, rootKey, phones: [{number, name, jid, lid, linked, online}]}`
 * - `POST /control/phones` `{number?}`       → a new account's phone
 * - `POST /control/phones/{number}/scan` `{qr}` → pairs the client showing `qr` with that account
 * - `POST /control/phones/{number}/code` `{code}` → the owner types a pairing code on that phone
 * - `POST /control/contacts/{pn}/text` `{text, to?, name?}` → `{id}`: the contact writes to account `to`
 * - `GET  /control/contacts/{pn}/messages`   → `{messages: [{account, type, id, text, message}]}`
 * - `POST /control/contacts/{pn}/roundtrip` `{text, to?, count?, timeoutMs?}` → `{durationsMs}`: per
 *   round, the time from the contact's message leaving the server to the client's reply decrypted
 * - `POST /control/contacts/{pn}/wait` `{count, timeoutMs?}` → `{received}`: answers once the contact has
 *   decrypted at least `count` messages in all (a long poll: no polling of the full list)
 * - `POST /control/disconnect` `{phone?, code?}` → `{ended}` ({@link WaTestServer.disconnect})
 * - `GET  /control/devices`                  → `{devices: [{device, connections, live, maxLive, replaced}]}`:
 *   per linked device, every connection that logged in as it and how it ended, and the most live at
 *   once ({@link WaTestServer.devices})
 * - `GET  /control/behaviour`                → the server's knobs (behaviour.ts)
 * - `PUT  /control/behaviour` `{knob: value…}` → the knobs after the change (400 for an unknown knob)
 *
 * A scan the phone refuses ("Couldn't link device", e.g. a QR whose secret the server retired) is a 409.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { LinkRefusedError, type FakePhone, type WaTestServer } from './types'
import { patchBehaviour } from './behaviour'
import { textOf } from './peer'

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = ''
  for await (const chunk of req) raw += String(chunk)
  if (!raw) return {}
  try {
    return JSON.parse(raw) as Record<string, unknown>
  } catch {
    throw new ControlError(400, 'the body is not JSON')
  }
}

const phoneInfo = (p: FakePhone) => ({ number: p.number, name: p.name, jid: p.jid, lid: p.lid, linked: p.linked, online: p.online })

function phoneArg(server: WaTestServer, number: unknown): FakePhone {
  if (number === undefined) return server.phone
  const phone = server.phoneOf(String(number))
  if (!phone) throw new ControlError(404, `no account ${String(number)}`)
  return phone
}

/** Answers one `/control…` request. */
export async function handleControl(server: WaTestServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const reply = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  }
  try {
    const path = new URL(req.url ?? '/', 'http://x').pathname.split('/').filter(Boolean)
    const body = req.method === 'POST' || req.method === 'PUT' ? await readJson(req) : {}
    const [, what, id, verb] = path
    if (req.method === 'GET' && !what) {
      return reply(200, { url: server.url, rootKey: server.rootPublicKeyB64, phones: server.phones().map(phoneInfo) })
    }
    if (req.method === 'POST' && what === 'phones' && !id) return reply(200, phoneInfo(server.addPhone(body.number === undefined ? undefined : String(body.number))))
    if (req.method === 'POST' && what === 'phones' && id && verb === 'scan') {
      if (typeof body.qr !== 'string') throw new ControlError(400, 'qr is required')
      await phoneArg(server, id).scan(body.qr)
      return reply(200, phoneInfo(phoneArg(server, id)))
    }
    if (req.method === 'POST' && what === 'phones' && id && verb === 'code') {
      if (typeof body.code !== 'string') throw new ControlError(400, 'code is required')
      await phoneArg(server, id).enterCode(body.code)
      return reply(200, phoneInfo(phoneArg(server, id)))
    }
    if (what === 'contacts' && id) {
      const contact = server.contact(id, typeof body.name === 'string' ? body.name : undefined)
      if (req.method === 'GET' && verb === 'messages') {
        return reply(200, { messages: contact.messages().map((m) => ({ account: m.account, type: m.type, id: m.id, text: textOf(m.message) ?? null, message: m.message })) })
      }
      if (req.method === 'POST' && verb === 'text') {
        if (typeof body.text !== 'string') throw new ControlError(400, 'text is required')
        return reply(200, { id: await contact.sendText(body.text, phoneArg(server, body.to)) })
      }
      if (req.method === 'POST' && verb === 'roundtrip') {
        if (typeof body.text !== 'string') throw new ControlError(400, 'text is required')
        const count = Number(body.count ?? 1)
        const timeoutMs = Number(body.timeoutMs ?? 5000)
        const to = phoneArg(server, body.to)
        const durationsMs: number[] = []
        for (let i = 0; i < count; i++) {
          const next = contact.nextMessage(timeoutMs)
          const start = performance.now()
          await contact.sendText(body.text, to)
          durationsMs.push((await next).at - start)
        }
        return reply(200, { durationsMs })
      }
      if (req.method === 'POST' && verb === 'wait') {
        const count = Number(body.count)
        if (!Number.isInteger(count) || count < 0) throw new ControlError(400, 'count must be a whole number')
        const deadline = performance.now() + Number(body.timeoutMs ?? 30_000)
        // nextMessage registers its waiter synchronously after the length check: nothing slips between.
        while (contact.messages().length < count) {
          const left = deadline - performance.now()
          if (left <= 0) break
          await contact.nextMessage(left).catch(() => undefined)
        }
        const received = contact.messages().length
        if (received < count) throw new ControlError(408, `${id} decrypted ${received} of ${count} messages in time`)
        return reply(200, { received })
      }
    }
    if (what === 'behaviour' && !id) {
      if (req.method === 'PUT') {
        try {
          Object.assign(server.behaviour, patchBehaviour(server.behaviour, body))
        } catch (err) {
          throw new ControlError(400, err instanceof Error ? err.message : String(err))
        }
      }
      if (req.method === 'PUT' || req.method === 'GET') return reply(200, server.behaviour)
    }
    if (req.method === 'GET' && what === 'devices' && !id) return reply(200, { devices: server.devices() })
    if (req.method === 'POST' && what === 'disconnect') {
      return reply(200, { ended: server.disconnect({ phone: body.phone === undefined ? undefined : phoneArg(server, body.phone), code: body.code === undefined ? undefined : Number(body.code) }) })
    }
    throw new ControlError(404, `no control route ${req.method} ${req.url}`)
  } catch (err) {
    const status = err instanceof ControlError ? err.status : err instanceof LinkRefusedError ? 409 : 500
    reply(status, { error: err instanceof Error ? err.message : String(err) })
  }
}
