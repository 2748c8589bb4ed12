import { describe, expect, it } from 'vitest'
import { toGroupJid, toJid } from '../../../src/main/channel/jid'
import { renderButtons, renderList } from '../../../src/main/channel/interactive-text'
import { buildVCard } from '../../../src/main/channel/vcard'
import { isTimeOfDay, parseTimeZone } from '../../../src/shared/formats'

describe('toJid', () => {
  it.each([
    ['+1 (555) 010-2000', '15550102000@s.whatsapp.net'],
    ['91 98765 43210', '919876543210@s.whatsapp.net'],
    ['15550102000@c.us', '15550102000@s.whatsapp.net'],
    ['15550102000:12@s.whatsapp.net', '15550102000@s.whatsapp.net'],
    ['120363012345678901@g.us', '120363012345678901@g.us'],
    ['15550102000-1612345678@g.us', '15550102000-1612345678@g.us'],
    ['123456789012345@lid', '123456789012345@lid'],
    ['status@broadcast', 'status@broadcast']
  ])('%s → %s', (input, jid) => expect(toJid(input)).toBe(jid))

  it.each(['', 'bob', '12', 'abc@s.whatsapp.net', '1555@example.com'])('refuses %j', (input) => expect(toJid(input)).toBeNull())

  it('normalises group ids', () => {
    expect(toGroupJid('120363012345678901')).toBe('120363012345678901@g.us')
    expect(toGroupJid('15550102000@s.whatsapp.net')).toBeNull()
  })
})

describe('interactive text', () => {
  it('numbers buttons, keeps payloads as option ids, adds the footer', () => {
    const r = renderButtons('Hi', [{ type: 'replyButton', title: 'A' }, { type: 'urlButton', title: 'Site', payload: 'https://x.example' }], 'foot')
    expect(r.text).toBe('Hi\n\n1. A\n2. Site: https://x.example\n\n_foot_')
    expect(r.options).toEqual([{ title: 'A', id: 'A' }, { title: 'Site', id: 'https://x.example' }])
  })
  it('numbers list rows across sections', () => {
    const r = renderList({ text: 'T', sections: [{ title: 'S1', rows: [{ title: 'a', rowId: '1' }] }, { rows: [{ title: 'b' }] }] })
    expect(r.text).toBe('T\n\n*S1*\n1. a\n\n2. b\n\nReply with the number of your choice.')
    expect(r.options).toEqual([{ title: 'a', id: '1' }, { title: 'b', id: 'b' }])
  })
})

describe('vCard and formats', () => {
  it('escapes vCard values', () => {
    expect(buildVCard({ fullName: 'A, B; C', phoneNumber: '+1 555' })).toContain('FN:A\\, B\\; C')
  })
  it('parses time zones', () => {
    expect(parseTimeZone('+05:30')).toEqual({ kind: 'offset', minutes: 330 })
    expect(parseTimeZone('UTC+5:30')).toEqual({ kind: 'offset', minutes: 330 })
    expect(parseTimeZone('GMT-3')).toEqual({ kind: 'offset', minutes: -180 })
    expect(parseTimeZone('Asia/Kolkata')).toEqual({ kind: 'iana', name: 'Asia/Kolkata' })
    expect(parseTimeZone('+15:00')).toBeNull()
    expect(parseTimeZone('Nowhere/City')).toBeNull()
  })
  it('checks times of day', () => {
    expect(['0:00', '9:05', '23:59'].every(isTimeOfDay)).toBe(true)
    expect(['24:00', '9:5', '12:60', 'noon'].some(isTimeOfDay)).toBe(false)
  })
})
