/**
 * Pure rules of the screens a new owner meets: the bot's "No reply" line once per run of silent
 * decisions, and an instance's label where room is short (the number is never what is cut).
 */
import { describe, expect, it } from 'vitest'
import { decisionRuns } from '../../src/renderer/src/components/decision-runs'
import { instanceTag, pickerLabel } from '../../src/renderer/src/instance-label'
import type { LoggedMessage } from '../../src/shared/schemas/records'

let seq = 0
function msg(fromMe: boolean, bot?: LoggedMessage['bot']): LoggedMessage {
  seq++
  return { id: `m${seq}`, chatId: '1@s.whatsapp.net', fromMe, pushName: null, type: 'text', text: `t${seq}`, timestamp: seq, status: fromMe ? 'SERVER_ACK' : 'RECEIVED', source: fromMe ? 'desk' : 'inbound', ...(bot ? { bot } : {}) } as LoggedMessage
}
const off = { action: 'none', reason: 'reply_msgs_off' } as const
const paused = { action: 'none', reason: 'paused' } as const

describe('decisionRuns', () => {
  it('says a run of silent decisions once, under its last message, with its length', () => {
    const a = [msg(false, off), msg(false, off), msg(false, off)]
    const reply = msg(true)
    const b = [msg(false, paused), msg(false, paused)]
    const runs = decisionRuns([...a, reply, ...b])
    expect([...runs]).toEqual([
      [a[0]!.id, 0],
      [a[1]!.id, 0],
      [a[2]!.id, 3],
      [b[0]!.id, 0],
      [b[1]!.id, 2]
    ])
  })

  it('leaves single silent messages, answered ones and a change of reason as they are', () => {
    const one = msg(false, off)
    const answered = msg(false, { action: 'intent', ref: 'Hours' })
    const x = msg(false, off)
    const y = msg(false, paused)
    const own = msg(false, { action: 'none', reason: 'own_message' })
    expect(decisionRuns([one, answered, x, y, own]).size).toBe(0)
  })
})

describe('instance labels', () => {
  const linked = { _id: 'a'.repeat(24), settings: { bot_name: 'Pizzeria Marco da Napoli, Centro Storico', bot_number: '15550102000' } }
  const unlinked = { _id: 'b'.repeat(23) + 'c', settings: { bot_name: 'Instance 2', bot_number: null } }
  it('the picker: the number alone on a phone, after a shortened name elsewhere', () => {
    expect(pickerLabel(linked, true)).toBe('+15550102000')
    expect(pickerLabel(linked, false)).toBe('Pizzeria Marco da Napol… · +15550102000')
    expect(pickerLabel(unlinked, true)).toBe('Instance 2')
    expect(pickerLabel(unlinked, false)).toBe('Instance 2 · #bbbbbc')
    expect(pickerLabel({ _id: 'x', settings: { bot_name: '+15550102000', bot_number: '15550102000' } }, false)).toBe('+15550102000')
  })

  it('a tag adds the number only when another instance bears the same name', () => {
    const twin = { _id: 'c'.repeat(24), settings: { bot_name: 'Chatapp Bot', bot_number: '15550103000' } }
    const first = { _id: 'd'.repeat(24), settings: { bot_name: 'Chatapp Bot', bot_number: '15550104000' } }
    expect(instanceTag(linked, [linked, twin])).toBe(linked.settings.bot_name)
    expect(instanceTag(twin, [first, twin])).toBe('Chatapp Bot · +15550103000')
  })
})
