/**
 * Business hours that explain themselves (docs/design.md §16): several windows a day,
 * closed days and holidays in the instance's IANA zone; the away message names the next opening; the
 * seed's active_days / active_hours routes stay views of the same model.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import type { LoggedMessage } from '../../src/shared/schemas/records'

let h: Harness
let qs: string
let now: Date

beforeEach(async () => {
  now = new Date('2026-11-23T08:30:00.000Z') // Monday 9:30 in Rome (UTC+1)
  h = await makeHarness({ clock: { now: () => now.getTime() } })
  ;({ qs } = await h.connectedInstance())
  await put('/chatapp/updateGeneral', { bot_timezone: 'Europe/Rome' })
  await put('/chatapp/updateActiveHours', { from: '12:00', to: '22:00' })
  await put('/chatapp/away', { enabled: true, message: 'Closed now, [name]. We open [next_open].' })
})
afterEach(async () => {
  await h.close()
})

async function put(url: string, payload: object) {
  const res = await h.call({ method: 'PUT', url: `${url}?${qs}`, payload })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

/** A customer writes at `iso` (a new chat each time, so each may get the away message once). */
let n = 0
async function customerAt(iso: string): Promise<{ message: LoggedMessage; replies: LoggedMessage[] }> {
  now = new Date(iso)
  const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: `1555000${String(++n).padStart(4, '0')}`, message: 'hello', pushName: 'Ann' } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

it('answers in both windows of a split day, sends the away message in the break with the next opening', async () => {
  const model = await put('/chatapp/openingHours', { ranges: { monday: [{ from: '9:00', to: '13:00' }, { from: '15:00', to: '19:00' }] }, holidays: ['2026-12-25'] })
  expect(model).toEqual({ ranges: { monday: [{ from: '9:00', to: '13:00' }, { from: '15:00', to: '19:00' }] }, holidays: ['2026-12-25'] })
  expect((await customerAt('2026-11-23T08:30:00.000Z')).message.bot).toEqual({ action: 'default' })
  const inBreak = await customerAt('2026-11-23T12:30:00.000Z') // 13:30
  expect(inBreak.message.bot).toEqual({ action: 'away' })
  expect(inBreak.replies.map((r) => r.text)).toEqual(['Closed now, Ann. We open today at 15:00.'])
  expect((await customerAt('2026-11-23T14:05:00.000Z')).message.bot).toEqual({ action: 'default' })
  // Tuesday has no windows of its own: active_hours (12:00–22:00).
  expect((await customerAt('2026-11-24T10:00:00.000Z')).replies.map((r) => r.text)).toEqual(['Closed now, Ann. We open today at 12:00.'])
})

it('stays closed on a holiday and names the day after it', async () => {
  await put('/chatapp/openingHours', { holidays: ['2026-12-25', '2026-12-24'] })
  const christmas = await customerAt('2026-12-25T11:00:00.000Z') // Friday 12:00
  expect(christmas.message.bot).toEqual({ action: 'away' })
  expect(christmas.replies[0]?.text).toBe('Closed now, Ann. We open tomorrow at 12:00.')
  expect((await put('/chatapp/openingHours', {})).holidays).toEqual(['2026-12-24', '2026-12-25'])
})

it('keeps the seed routes as views: active_days closes a day whatever its windows, active_hours is the default', async () => {
  await put('/chatapp/openingHours', { ranges: { monday: [{ from: '9:00', to: '13:00' }] } })
  await put('/chatapp/updateActiveDays', { monday: false })
  expect((await customerAt('2026-11-23T09:00:00.000Z')).message.bot).toEqual({ action: 'away' })
  await put('/chatapp/updateActiveDays', { monday: true })
  expect((await customerAt('2026-11-23T09:00:00.000Z')).message.bot).toEqual({ action: 'default' })
  // An empty list gives the day back to active_hours.
  await put('/chatapp/openingHours', { ranges: { monday: [] } })
  expect((await customerAt('2026-11-23T09:00:00.000Z')).message.bot).toEqual({ action: 'away' })
  await put('/chatapp/updateActiveHours', { from: '9:00', to: '18:00' })
  expect((await customerAt('2026-11-23T09:00:00.000Z')).message.bot).toEqual({ action: 'default' })
})

it('refuses a bad window or date with the field named, and changes nothing', async () => {
  const bad = await h.call({ method: 'PUT', url: `/chatapp/openingHours?${qs}`, payload: { ranges: { monday: [{ from: '25:00', to: '13:00' }] }, holidays: ['2026-13-01'] } })
  expect(bad.statusCode).toBe(400)
  expect(bad.json.error.details).toEqual([
    { field: 'ranges.monday.0.from', problem: 'must be a time of day as H:MM or HH:MM, or the word always' },
    { field: 'holidays.0', problem: 'must be a date as YYYY-MM-DD' }
  ])
  expect(await put('/chatapp/openingHours', {})).toEqual({ ranges: {}, holidays: [] })
})
