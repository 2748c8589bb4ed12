import { afterEach, expect, it, vi } from 'vitest'
import { isLibsignalLine, routeLibsignalConsole } from '../../../src/main/channel/baileys/libsignal-console'

let restore: () => void = () => {}
afterEach(() => restore())

/** A session record as libsignal prints it: the private keys are in it. */
const sessionEntry = { currentRatchet: { ephemeralKeyPair: { privKey: Buffer.from('SECRET-PRIVATE-KEY') } } }

it("takes libsignal's lines off the console: the message text goes to the log, the session record nowhere", () => {
  const info = vi.spyOn(console, 'info').mockImplementation(() => {})
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const lines: string[] = []
  restore = routeLibsignalConsole((l) => lines.push(l))
  console.info('Closing session:', sessionEntry)
  console.info('Opening session:', sessionEntry)
  console.warn('Session already closed', sessionEntry)
  console.warn('Closing open session in favor of incoming prekey bundle')
  expect(lines).toEqual(['Closing session', 'Opening session', 'Session already closed', 'Closing open session in favor of incoming prekey bundle'])
  expect(info).not.toHaveBeenCalled()
  expect(warn).not.toHaveBeenCalled()
  expect(JSON.stringify(lines)).not.toContain('SECRET')
})

it('lets every other console line through, and restores the console', () => {
  const info = vi.spyOn(console, 'info').mockImplementation(() => {})
  restore = routeLibsignalConsole(() => {
    throw new Error('not a libsignal line')
  })
  console.info('Chatapp API listening on', 'http://127.0.0.1:3210')
  expect(info).toHaveBeenCalledWith('Chatapp API listening on', 'http://127.0.0.1:3210')
  restore()
  console.info('Closing session:', sessionEntry)
  expect(info).toHaveBeenLastCalledWith('Closing session:', sessionEntry)
})

it('knows the lines of libsignal and only those', () => {
  expect(isLibsignalLine(['Removing old closed session:', {}])).toBe(true)
  expect(isLibsignalLine(['Session error:Error: Bad MAC', 'stack'])).toBe(true)
  expect(isLibsignalLine(['Closing the app'])).toBe(false)
  expect(isLibsignalLine([{ msg: 'Closing session' }])).toBe(false)
})
