/**
 * A SQLite thread that dies is a fault like any other (docs/storage.md "Threads"): under 200
 * concurrent sends, the writer's thread is killed (an exit, or an uncaught error inside it); every
 * send answered 200 is in the log afterwards, the others answered 503 (not saved, try again), the
 * thread is started again with a log line and the app goes on; a reader dying under reads is the same;
 * a thread that keeps dying leaves the database unused and the app is told to stop, never hanging.
 */
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterEach, expect, it } from 'vitest'
import { internalsOf } from '../../src/main/core'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** A logger whose lines are kept. */
function capturedLogger(): { logger: pino.Logger; lines: Array<{ msg: string; thread?: string }> } {
  const lines: Array<{ msg: string; thread?: string }> = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { msg: string })
      done()
    }
  })
  return { logger: pino({ level: 'info' }, sink), lines }
}

for (const how of ['exit', 'throw'] as const) {
  it(`the writer's thread dies (${how}) under 200 concurrent sends: every acknowledged send is kept, the thread comes back`, async () => {
    const { logger, lines } = capturedLogger()
    h = await makeHarness({ logger })
    const { qs } = await h.connectedInstance()
    const database = internalsOf(h.core).storage.database
    let acknowledged = 0
    let crashed = false
    const sends = Array.from({ length: 200 }, (_, i) =>
      h!.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: `send ${i}` } }).then((res) => {
        if (res.statusCode === 200 && ++acknowledged === 30 && !crashed) {
          crashed = true
          database.crashThread!('writer', how)
        }
        return res
      })
    )
    const answers = await Promise.all(sends)
    expect(crashed).toBe(true)
    const byStatus = new Map<number, number>()
    for (const a of answers) byStatus.set(a.statusCode, (byStatus.get(a.statusCode) ?? 0) + 1)
    // Saved and answered, or refused as not saved: nothing else (no 500, no hang).
    expect([...byStatus.keys()].every((s) => s === 200 || s === 503)).toBe(true)
    const refused = answers.filter((a) => a.statusCode === 503)
    for (const r of refused) expect(r.json.message).toMatch(/not saved/)
    const acked = answers.filter((a) => a.statusCode === 200).map((a) => a.json.data.message.key.id as string)
    expect(acked.length).toBeGreaterThanOrEqual(30)
    const kept = new Set((await internalsOf(h.core).storage.repos.messages.list(h.core.instances.list()[0]!._id, { limit: 1000 })).map((m) => m.id))
    expect(acked.filter((id) => !kept.has(id))).toEqual([])
    // Started again (the log says so), and the next send is saved.
    await expect.poll(() => lines.some((l) => l.msg.includes('a database thread stopped and was started again') && l.thread === 'writer'), { timeout: 15_000 }).toBe(true)
    expect((await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'after' } })).statusCode).toBe(200)
  })
}

it('a reader dying under reads: the reads in flight fail as 503, the next ones are answered', async () => {
  const { logger, lines } = capturedLogger()
  h = await makeHarness({ logger })
  const { qs } = await h.connectedInstance()
  for (let i = 0; i < 20; i++) await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: `m ${i}` } })
  const database = internalsOf(h.core).storage.database
  const reads = Array.from({ length: 100 }, (_, i) => {
    if (i === 10) database.crashThread!('reader', 'exit')
    return h!.call({ method: 'GET', url: `/chatapp/messages?${qs}&limit=20` })
  })
  const answers = await Promise.all(reads)
  expect(answers.every((a) => a.statusCode === 200 || a.statusCode === 503)).toBe(true)
  expect((await h.call({ method: 'GET', url: `/chatapp/messages?${qs}&limit=20` })).json.data).toHaveLength(20)
  await expect.poll(() => lines.some((l) => l.msg.includes('started again') && l.thread === 'reader 1'), { timeout: 15_000 }).toBe(true)
})

it('a writer that keeps dying: the database is given up, the app is told to stop, requests fail at once', async () => {
  const { logger, lines } = capturedLogger()
  let failed: Error | undefined
  h = await makeHarness({ logger, onDatabaseFailed: (err) => (failed = err) })
  const { qs } = await h.connectedInstance()
  const database = internalsOf(h.core).storage.database
  // Each crash is seen by a write that then fails; after the sixth within a minute the handle gives up.
  for (let i = 0; i < 10 && !failed; i++) {
    database.crashThread!('writer', 'exit')
    await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: `m ${i}` } })
  }
  expect(failed?.message).toMatch(/died \d+ times within a minute/)
  expect(lines.some((l) => l.msg.includes('cannot be started again'))).toBe(true)
  const after = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'after' } })
  expect(after.statusCode).toBe(503)
})
