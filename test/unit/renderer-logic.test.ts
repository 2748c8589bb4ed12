/** Pure renderer logic: the curl examples, quick reply insertion, the About section's update texts. */
import { describe, expect, it } from 'vitest'
import { curlExamples } from '../../src/renderer/src/curl-examples'
import { problemsShownOnForm } from '../../src/renderer/src/components/form-errors'
import { ContractError } from '../../src/shared/contract'
import { insertReply, matchingReplies, shortcutBeingTyped } from '../../src/renderer/src/tabs/messages/quick-reply-insert'
import type { Instance } from '../../src/shared/schemas/records'
import { blockersText, installWhenText, updateHeadline } from '../../src/renderer/src/update-text'
import { unsupportedUpdates, type UpdateStatusT } from '../../src/shared/operations/updates'

describe('curlExamples', () => {
  it('uses the base URL, the token and the instance credentials, shell-quoted', () => {
    const inst = { session_id: 'sess', settings: { access_token: "to'k" } } as unknown as Instance
    const ex = curlExamples('http://127.0.0.1:3210', 'TOKEN', inst)
    const send = ex.find((e) => e.title === 'Send a text')!.command
    expect(send).toContain("-H 'Authorization: Bearer TOKEN'")
    expect(send).toContain("'http://127.0.0.1:3210/chatapp/message?session_id=sess&access_token=to'\\''k'")
    expect(ex.map((e) => e.title)).toContain('List instances')
  })
})

describe('quick reply insertion', () => {
  const replies = [
    { shortcut: 'hours', text: 'We are open 12–23.' },
    { shortcut: 'address', text: 'Via Roma 1' },
    { shortcut: 'house', text: 'Our house wine is …' }
  ]

  it('offers the replies a /word at the end starts, and puts the text in its place', () => {
    const q = shortcutBeingTyped('Hi Ann! /ho')!
    expect(q).toEqual({ prefix: 'ho', at: 8 })
    expect(matchingReplies(replies, q).map((r) => r.shortcut)).toEqual(['hours', 'house'])
    expect(insertReply('Hi Ann! /ho', q, 'We are open 12–23.')).toBe('Hi Ann! We are open 12–23.')
    expect(matchingReplies(replies, shortcutBeingTyped('/')!)).toHaveLength(3)
  })

  it('offers nothing for a slash inside a word or before the end', () => {
    expect(shortcutBeingTyped('1/2 pizza')).toBeNull()
    expect(shortcutBeingTyped('and/or')).toBeNull()
    expect(shortcutBeingTyped('/hours please')).toBeNull()
    expect(shortcutBeingTyped('')).toBeNull()
  })
})

describe('field problems shown once', () => {
  const err = (fields: string[]) => new ContractError({ code: 'VALIDATION_ERROR', message: 'Invalid request', details: fields.map((field) => ({ field, problem: 'is wrong' })) })

  it('counts a problem as shown when the form has that field (after its prefix)', () => {
    expect(problemsShownOnForm(err(['shortcut']), { keys: ['shortcut', 'text'] })).toBe(true)
    expect(problemsShownOnForm(err(['smtp.host', 'smtp.port']), { keys: ['host', 'port'], prefix: 'smtp.' })).toBe(true)
    expect(problemsShownOnForm(err(['rows.0.title']), { keys: ['rows'] })).toBe(true)
  })

  it('does not when a problem has no input, or the error is not a validation error', () => {
    expect(problemsShownOnForm(err(['shortcut', 'instanceId']), { keys: ['shortcut'] })).toBe(false)
    expect(problemsShownOnForm(new ContractError({ code: 'CONFLICT', message: 'taken' }), { keys: ['shortcut'] })).toBe(false)
    expect(problemsShownOnForm(new Error('boom'), { keys: ['shortcut'] })).toBe(false)
  })
})

describe('Settings → About update texts', () => {
  const base = unsupportedUpdates('0.1.0', '')
  const s = (over: Partial<UpdateStatusT>): UpdateStatusT => ({ ...base, supported: true, reason: null, ...over })
  const available = { version: '0.2.0', releaseNotes: null, releaseDate: null }

  it('says where the update stands, in words', () => {
    expect(updateHeadline(s({ state: 'up-to-date', lastCheckAt: '2026-11-25T10:00:00Z' }), () => 'today at 10:00')).toBe('Chatapp Desk is up to date (checked today at 10:00).')
    expect(updateHeadline(s({ state: 'downloading', available, progress: { percent: 42.7, transferred: 1, total: 52_428_800, bytesPerSecond: 1 } }))).toBe('Downloading version 0.2.0… 42% of 50.0 MB')
    expect(updateHeadline(s({ state: 'downloaded', available }))).toBe('Version 0.2.0 is ready to install.')
    expect(updateHeadline(s({ state: 'installing', available, blockers: ['sends'] }))).toBe('Restarting to install version 0.2.0 as soon as nothing else runs: a message is being sent.')
  })

  it('names what a restart would interrupt, and when an update installs by itself', () => {
    expect(blockersText(['broadcast', 'survey', 'sends'])).toBe('a broadcast is sending, a customer is in the middle of a survey and a message is being sent')
    expect(blockersText(['survey'])).toBe('a customer is in the middle of a survey')
    expect(installWhenText({ needsPassword: true, installsOnQuit: false, autoDownload: true })).toMatch(/administrator password/)
    expect(installWhenText({ needsPassword: false, installsOnQuit: true, autoDownload: true })).toMatch(/when you quit the app, or at night/)
  })
})
