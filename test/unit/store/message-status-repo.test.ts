/**
 * A channel's status report applied by the message repository (store/repos/message-repo.ts
 * `recordStatus`, the rules of domain/delivery-status.ts) on a real SQLite file and a real
 * PostgreSQL database: it moves the desk's own message forward only, once per status, keeps an
 * ERROR's code, leaves a customer's message alone, and says when there is no such entry. On SQLite
 * it is one data-only call, run whole in the writer's thread inside the group commit.
 */
import { describe, expect, it } from 'vitest'
import type { LoggedMessage } from '../../../src/shared/schemas/records'
import type { Repositories } from '../../../src/main/store/repos'
import { tempStorageEach, type TempStorage } from '../../helpers/temp-storage'
import { BACKENDS } from '../../helpers/postgres'

const msg = (over: Partial<LoggedMessage>): LoggedMessage => ({
  id: 'M1',
  chatId: '15550001111@s.whatsapp.net',
  fromMe: true,
  pushName: null,
  type: 'text',
  text: 'your order is ready',
  timestamp: 1_790_000_000_000,
  status: 'PENDING',
  source: 'api',
  ...over
})

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TempStorage
  let repos: Repositories
  tempStorageEach(backend, (fresh) => {
    t = fresh
    repos = fresh.storage.repos
  })

  it('moves a sent message forward only, once per status, and keeps the stored entry in step', async () => {
    await repos.messages.append('i1', msg({}))
    expect(await repos.messages.recordStatus('i1', { id: 'M1', status: 'SERVER_ACK' })).toMatchObject({ id: 'M1', status: 'SERVER_ACK', text: 'your order is ready' })
    // The same report twice (Baileys' ack handler and its own update): only the first moves it.
    expect(await repos.messages.recordStatus('i1', { id: 'M1', status: 'SERVER_ACK' })).toBeNull()
    expect((await repos.messages.recordStatus('i1', { id: 'M1', status: 'READ' }))?.status).toBe('READ')
    expect(await repos.messages.recordStatus('i1', { id: 'M1', status: 'DELIVERY_ACK' })).toBeNull()
    expect(await repos.messages.recordStatus('i1', { id: 'M1', status: 'ERROR', errorCode: '463' })).toBeNull()
    expect((await repos.messages.find('i1', 'M1'))?.status).toBe('READ')
    // Reopened: what was acknowledged is what is stored.
    const again = await t.reopen()
    expect((await again.repos.messages.find('i1', 'M1'))?.status).toBe('READ')
  })

  it("keeps an ERROR's code, leaves a customer's message alone, and answers undefined for an unknown id or instance", async () => {
    await repos.messages.append('i1', msg({ id: 'M2', status: 'SERVER_ACK' }))
    await repos.messages.append('i1', msg({ id: 'IN1', fromMe: false, status: 'DELIVERY_ACK', source: 'inbound' }))
    expect(await repos.messages.recordStatus('i1', { id: 'M2', status: 'ERROR', errorCode: '463' })).toMatchObject({ status: 'ERROR', error_code: '463' })
    expect((await repos.messages.find('i1', 'M2'))?.error_code).toBe('463')
    expect(await repos.messages.recordStatus('i1', { id: 'IN1', status: 'READ' })).toBeNull()
    expect(await repos.messages.recordStatus('i1', { id: 'NOPE', status: 'READ' })).toBeUndefined()
    expect(await repos.messages.recordStatus('i2', { id: 'M2', status: 'READ' })).toBeUndefined()
  })

  it('applies several reports in one write, in order, each answered with what it made of its entry', async () => {
    await repos.messages.append('i1', msg({ id: 'A' }))
    await repos.messages.append('i1', msg({ id: 'B', status: 'SERVER_ACK' }))
    const answers = await repos.messages.recordStatuses([
      { instanceId: 'i1', update: { id: 'A', status: 'SERVER_ACK' } },
      { instanceId: 'i1', update: { id: 'B', status: 'ERROR', errorCode: '463' } },
      { instanceId: 'i1', update: { id: 'A', status: 'DELIVERY_ACK' } },
      { instanceId: 'i1', update: { id: 'A', status: 'SERVER_ACK' } },
      { instanceId: 'i1', update: { id: 'NOPE', status: 'READ' } },
      { instanceId: 'i2', update: { id: 'A', status: 'READ' } }
    ])
    expect(answers.map((a) => a && { id: a.id, status: a.status, error_code: a.error_code })).toEqual([
      { id: 'A', status: 'SERVER_ACK', error_code: undefined },
      { id: 'B', status: 'ERROR', error_code: '463' },
      { id: 'A', status: 'DELIVERY_ACK', error_code: undefined },
      null,
      undefined,
      undefined
    ])
    const again = await t.reopen()
    expect((await again.repos.messages.find('i1', 'A'))?.status).toBe('DELIVERY_ACK')
    expect(await again.repos.messages.find('i1', 'B')).toMatchObject({ status: 'ERROR', error_code: '463' })
  })

  it('applies a busy turn of reports over many messages and two instances, each message as its own reports decide', async () => {
    // More messages than one IN list holds (store/repos/in-lists.ts), of two instances, and one of an
    // erased customer: the batch's reads and its grouped updates must keep each apart.
    const ids = Array.from({ length: 600 }, (_, i) => `S${i}`)
    await repos.messages.appendMany('i1', ids.map((id, i) => msg({ id, timestamp: 1_790_000_000_000 + i })))
    await repos.messages.appendMany('i2', ids.slice(0, 50).map((id) => msg({ id, status: 'DELIVERY_ACK' })))
    await repos.messages.append('i1', msg({ id: 'GONE', chatId: '15550009999@s.whatsapp.net' }))
    await repos.customerData.eraseCustomer('i1', '15550009999', 'owner', new Date().toISOString(), 'E1')
    const reports = [
      ...ids.map((id) => ({ instanceId: 'i1', update: { id, status: 'SERVER_ACK' as const } })),
      ...ids.filter((_, i) => i % 3 === 0).map((id) => ({ instanceId: 'i1', update: { id, status: 'DELIVERY_ACK' as const } })),
      ...ids.filter((_, i) => i % 7 === 0).map((id) => ({ instanceId: 'i1', update: { id, status: 'ERROR' as const, errorCode: '463' } })),
      ...ids.slice(0, 50).map((id) => ({ instanceId: 'i2', update: { id, status: 'SERVER_ACK' as const } })),
      ...ids.slice(0, 50).map((id) => ({ instanceId: 'i2', update: { id, status: 'READ' as const } })),
      { instanceId: 'i1', update: { id: 'GONE', status: 'READ' as const } }
    ]
    const answers = await repos.messages.recordStatuses(reports)
    expect(answers).toHaveLength(reports.length)
    // SERVER_ACK moves every i1 message forward; i2's were delivered already, so theirs is no change.
    expect(answers.slice(0, 600).every((a, i) => a?.id === ids[i] && a?.status === 'SERVER_ACK')).toBe(true)
    // An ERROR after a delivery is refused (domain/delivery-status.ts): every third stays delivered.
    const expected = (i: number) => (i % 3 === 0 ? 'DELIVERY_ACK' : i % 7 === 0 ? 'ERROR' : 'SERVER_ACK')
    const again = await t.reopen()
    for (const [i, id] of ids.entries()) {
      const stored = await again.repos.messages.find('i1', id)
      expect({ id, status: stored?.status, error_code: stored?.error_code }).toEqual({ id, status: expected(i), error_code: expected(i) === 'ERROR' ? '463' : undefined })
    }
    for (const id of ids.slice(0, 50)) expect((await again.repos.messages.find('i2', id))?.status).toBe('READ')
    expect(answers.slice(-51, -1).every((a) => a === null || a?.status === 'READ')).toBe(true)
    expect(answers.at(-1)).toBeUndefined()
    expect((await again.repos.messages.find('i1', 'S1'))?.text).toBe('your order is ready')
  })
})
