/**
 * Workers on one PostgreSQL database (docs/design.md §22): two cores, each on a data dir of its own and the same
 * `CHATAPP_DATABASE_URL`, share one configuration document (docs/storage.md "The configuration
 * document"): the same account and token, the same instances, whichever worker wrote them. On the
 * run's real PostgreSQL server.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'

let harnesses: Harness[] = []
let url: string | undefined
afterEach(async () => {
  for (const h of harnesses.reverse()) await h.close()
  harnesses = []
  if (url) await dropTestDatabase(url)
  url = undefined
})

async function worker(databaseUrl: string): Promise<Harness> {
  const h = await makeHarness({ databaseUrl })
  harnesses.push(h)
  return h
}

it("a second worker on its own data dir answers with the first one's token and finds its instances; the first hears of the second's", async () => {
  url = await createTestDatabase()
  const a = await worker(url)
  const inst = await a.createInstance()
  const b = await worker(url)
  expect(b.dataDir).not.toBe(a.dataDir)
  expect(b.token).toBe(a.token)
  expect(b.core.account.generatedNow).toBe(false)

  // B authenticates A's token (its own token is the same) and finds A's instance by its session id.
  const qs = `session_id=${encodeURIComponent(inst.session_id)}&access_token=${encodeURIComponent(inst.settings.access_token)}`
  const res = await b.call({ method: 'GET', url: `/chatapp/instance?${qs}` })
  expect(res.statusCode).toBe(200)
  expect(res.json.data.instance_data.instance_key).toBe(inst.session_id)

  // An instance B creates reaches A through the database's notification, with no restart.
  const made = await b.createInstance()
  await vi.waitFor(() => expect(a.core.instances.list().map((i) => i._id)).toEqual([inst._id, made._id]), { timeout: 5000, interval: 10 })
  const viaA = await a.call({ method: 'GET', url: `/chatapp/instance?session_id=${encodeURIComponent(made.session_id)}&access_token=${encodeURIComponent(made.settings.access_token)}` })
  expect(viaA.statusCode).toBe(200)
})

it('two workers starting at once on an empty database make one account, and both answer with its token', async () => {
  url = await createTestDatabase()
  const [a, b] = await Promise.all([worker(url), worker(url)])
  expect(a.token).toBe(b.token)
  // The token shown once at first start is shown by the worker that made it, not by both.
  expect([a.core.account.generatedNow, b.core.account.generatedNow].filter(Boolean)).toHaveLength(1)
})
