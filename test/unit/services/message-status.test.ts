import { describe, expect, it } from 'vitest'
import { advances, applyStatus } from '../../../src/main/domain/delivery-status'
import { echoStatus, statusUpdate } from '../../../src/main/channel/baileys/delivery-status'
import type { LoggedMessage } from '../../../src/shared/schemas/records'
import { proto, type WAMessage } from 'baileys'

const sent = (status: string): LoggedMessage => ({ id: 'M1', chatId: 'a@s.whatsapp.net', fromMe: true, pushName: null, type: 'text', text: 'hi', timestamp: 1, status, source: 'api' })

describe('delivery status rules (docs/design.md §13)', () => {
  it('moves forward only', () => {
    expect(advances('PENDING', 'SERVER_ACK')).toBe(true)
    expect(advances('SERVER_ACK', 'DELIVERY_ACK')).toBe(true)
    expect(advances('DELIVERY_ACK', 'READ')).toBe(true)
    expect(advances('READ', 'PLAYED')).toBe(true)
    expect(advances('PENDING', 'READ')).toBe(true)
    expect(advances('READ', 'DELIVERY_ACK')).toBe(false)
    expect(advances('DELIVERY_ACK', 'DELIVERY_ACK')).toBe(false)
  })

  it('ERROR replaces PENDING or SERVER_ACK only, and ends it', () => {
    expect(advances('PENDING', 'ERROR')).toBe(true)
    expect(advances('SERVER_ACK', 'ERROR')).toBe(true)
    expect(advances('DELIVERY_ACK', 'ERROR')).toBe(false)
    expect(advances('ERROR', 'READ')).toBe(false)
  })

  it('applies to sent messages only, with the error code on ERROR', () => {
    expect(applyStatus(sent('PENDING'), { id: 'M1', status: 'ERROR', errorCode: '463' })).toEqual({ status: 'ERROR', error_code: '463' })
    expect(applyStatus(sent('PENDING'), { id: 'M1', status: 'READ', errorCode: '463' })).toEqual({ status: 'READ' })
    expect(applyStatus({ ...sent('RECEIVED'), fromMe: false }, { id: 'M1', status: 'READ' })).toBeNull()
    expect(applyStatus(sent('weird'), { id: 'M1', status: 'READ' })).toBeNull()
  })
})

describe('Baileys statuses (lib/Socket/messages-recv.js handleBadAck, handleReceipt)', () => {
  it('maps the proto numbers and takes the code of an ERROR from the stub parameters', () => {
    const S = proto.WebMessageInfo.Status
    expect(statusUpdate('M1', S.DELIVERY_ACK)).toEqual({ id: 'M1', status: 'DELIVERY_ACK' })
    expect(statusUpdate('M1', S.PLAYED)).toEqual({ id: 'M1', status: 'PLAYED' })
    expect(statusUpdate('M1', S.ERROR, ['463', 'Your account has been restricted'])).toEqual({ id: 'M1', status: 'ERROR', errorCode: '463' })
    expect(statusUpdate('M1', undefined)).toBeNull()
    expect(statusUpdate(undefined, S.READ)).toBeNull()
  })

  it('reads an ack merged into the send\'s own echo (event buffer), not a plain PENDING echo', () => {
    const echo = (status: number, stub?: string[]): WAMessage => ({ key: { id: 'M1', fromMe: true, remoteJid: 'a@s.whatsapp.net' }, status, ...(stub ? { messageStubParameters: stub } : {}) })
    expect(echoStatus(echo(proto.WebMessageInfo.Status.ERROR, ['479']))).toEqual({ id: 'M1', status: 'ERROR', errorCode: '479' })
    expect(echoStatus(echo(proto.WebMessageInfo.Status.DELIVERY_ACK))).toEqual({ id: 'M1', status: 'DELIVERY_ACK' })
    expect(echoStatus(echo(proto.WebMessageInfo.Status.PENDING))).toBeNull()
  })
})
