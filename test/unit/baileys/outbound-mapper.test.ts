import { generateWAMessageFromContent, proto } from 'baileys'
import { describe, expect, it } from 'vitest'
import { toMessageContent, toSentMessage, VOICE_NOTE_MIME } from '../../../src/main/channel/baileys/outbound-mapper'

const media = (mimetype: string, path = '/tmp/file.bin') => ({ path, mimetype, size: 10 })

describe('toMessageContent', () => {
  it('maps every outbound kind to the library content', () => {
    expect(toMessageContent({ kind: 'text', text: 'hi' })).toEqual({ text: 'hi' })
    expect(toMessageContent({ kind: 'image', media: media('image/png', '/a.png'), caption: 'c' })).toEqual({ image: { url: '/a.png' }, mimetype: 'image/png', caption: 'c' })
    expect(toMessageContent({ kind: 'image', media: media('image/png', '/a.png') })).toEqual({ image: { url: '/a.png' }, mimetype: 'image/png' })
    expect(toMessageContent({ kind: 'video', media: media('video/mp4', '/v.mp4'), caption: 'v' })).toEqual({ video: { url: '/v.mp4' }, mimetype: 'video/mp4', caption: 'v' })
    expect(toMessageContent({ kind: 'document', media: media('application/pdf', '/d.pdf'), fileName: 'Menu.pdf', caption: 'menu' })).toEqual({
      document: { url: '/d.pdf' },
      mimetype: 'application/pdf',
      fileName: 'Menu.pdf',
      caption: 'menu'
    })
    expect(toMessageContent({ kind: 'location', latitude: 12.5, longitude: -3.25, name: 'Shop', address: 'Main St 1' })).toEqual({
      location: { degreesLatitude: 12.5, degreesLongitude: -3.25, name: 'Shop', address: 'Main St 1' }
    })
    expect(toMessageContent({ kind: 'contact', displayName: 'Bob', vcard: 'BEGIN:VCARD\nEND:VCARD' })).toEqual({
      contacts: { displayName: 'Bob', contacts: [{ displayName: 'Bob', vcard: 'BEGIN:VCARD\nEND:VCARD' }] }
    })
  })

  it('audio: plain, and as a voice note (Ogg/Opus gets the codec MIME)', () => {
    expect(toMessageContent({ kind: 'audio', media: media('audio/mpeg', '/a.mp3') })).toEqual({ audio: { url: '/a.mp3' }, mimetype: 'audio/mpeg', ptt: false })
    expect(toMessageContent({ kind: 'audio', media: media('audio/ogg', '/a.ogg'), voiceNote: true })).toEqual({ audio: { url: '/a.ogg' }, mimetype: VOICE_NOTE_MIME, ptt: true })
    expect(toMessageContent({ kind: 'audio', media: media('audio/mpeg', '/a.mp3'), voiceNote: true })).toEqual({ audio: { url: '/a.mp3' }, mimetype: 'audio/mpeg', ptt: true })
  })
})

describe('toSentMessage', () => {
  it('is the library message info as docs/api-seed.md §2.11 JSON: base64 bytes, decimal-string longs, status name', () => {
    const msg = generateWAMessageFromContent(
      '15551234567@s.whatsapp.net',
      {
        imageMessage: {
          url: 'https://mmg.whatsapp.net/x.enc',
          mimetype: 'image/jpeg',
          caption: 'hi',
          fileSha256: Buffer.from('sha'),
          fileLength: 12345,
          height: 3,
          width: 4,
          mediaKey: Buffer.from('key'),
          fileEncSha256: Buffer.from('enc'),
          directPath: '/x.enc',
          mediaKeyTimestamp: 1_800_000_000,
          jpegThumbnail: Buffer.from('thumb')
        }
      },
      { userJid: '15550001111@s.whatsapp.net', timestamp: new Date(1_800_000_000_000) }
    )
    const sent = toSentMessage(msg, 0)
    expect(sent).toEqual({
      key: { remoteJid: '15551234567@s.whatsapp.net', fromMe: true, id: msg.key.id },
      message: {
        imageMessage: {
          url: 'https://mmg.whatsapp.net/x.enc',
          mimetype: 'image/jpeg',
          caption: 'hi',
          fileSha256: Buffer.from('sha').toString('base64'),
          fileLength: '12345',
          height: 3,
          width: 4,
          mediaKey: Buffer.from('key').toString('base64'),
          fileEncSha256: Buffer.from('enc').toString('base64'),
          directPath: '/x.enc',
          mediaKeyTimestamp: '1800000000',
          jpegThumbnail: Buffer.from('thumb').toString('base64')
        }
      },
      messageTimestamp: '1800000000',
      status: 'PENDING'
    })
    expect(JSON.parse(JSON.stringify(sent))).toEqual(sent)
  })

  it('leaves out the per-message secret the library adds', () => {
    const msg = { key: { remoteJid: 'a@s.whatsapp.net', id: 'X', fromMe: true }, message: { conversation: 'x', messageContextInfo: { messageSecret: Buffer.alloc(32, 9) } } }
    expect(toSentMessage(msg, 1).message).toEqual({ conversation: 'x' })
  })

  it('maps other statuses and fills a missing timestamp', () => {
    const msg = { key: { remoteJid: 'a@s.whatsapp.net', id: 'X', fromMe: true }, message: { conversation: 'x' }, status: proto.WebMessageInfo.Status.SERVER_ACK }
    expect(toSentMessage(msg, 42)).toMatchObject({ status: 'SERVER_ACK', messageTimestamp: '42', message: { conversation: 'x' } })
    expect(toSentMessage({ ...msg, status: proto.WebMessageInfo.Status.PLAYED }, 1).status).toBe('READ')
  })
})
