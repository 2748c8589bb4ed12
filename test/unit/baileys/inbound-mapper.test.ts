import { proto, type WAMessage } from 'baileys'
import { describe, expect, it } from 'vitest'
import { stripDevice, toInboundMessage, toSeconds } from '../../../src/main/channel/baileys/inbound-mapper'
import { waMessage } from '../../helpers/fake-baileys'

const PN = '15551234567@s.whatsapp.net'
const LID = '201234567890123@lid'
const GROUP = '120363025246125888@g.us'
const ctx = { offline: false, nowSeconds: 1_900_000_000 }

function dm(message: WAMessage['message'], extra: Partial<WAMessage> = {}): WAMessage {
  return waMessage({ key: { remoteJid: PN, fromMe: false, id: '3EB0AA' }, message, pushName: 'Ana', ...(extra as object) })
}

describe('toInboundMessage: text of every common message type', () => {
  const cases: Array<[string, WAMessage['message'], { type: string; text: string; selectedId?: string }]> = [
    ['conversation', { conversation: 'hello' }, { type: 'text', text: 'hello' }],
    ['extended text', { extendedTextMessage: { text: 'see https://x.y', matchedText: 'https://x.y' } }, { type: 'text', text: 'see https://x.y' }],
    ['image caption', { imageMessage: { caption: 'menu pic', mimetype: 'image/jpeg' } }, { type: 'image', text: 'menu pic' }],
    ['video caption', { videoMessage: { caption: 'clip', mimetype: 'video/mp4' } }, { type: 'video', text: 'clip' }],
    ['document caption', { documentMessage: { caption: 'invoice', mimetype: 'application/pdf', fileName: 'inv.pdf' } }, { type: 'document', text: 'invoice' }],
    [
      'document with caption wrapper',
      { documentWithCaptionMessage: { message: { documentMessage: { caption: 'wrapped', mimetype: 'application/pdf' } } } },
      { type: 'document', text: 'wrapped' }
    ],
    ['audio', { audioMessage: { mimetype: 'audio/ogg; codecs=opus', ptt: true } }, { type: 'audio', text: '' }],
    ['sticker', { stickerMessage: { mimetype: 'image/webp' } }, { type: 'sticker', text: '' }],
    ['location', { locationMessage: { degreesLatitude: 1, degreesLongitude: 2, name: 'Shop' } }, { type: 'location', text: 'Shop' }],
    ['contact', { contactMessage: { displayName: 'Bob', vcard: 'BEGIN:VCARD' } }, { type: 'contact', text: 'Bob' }],
    [
      'buttons reply',
      { buttonsResponseMessage: { selectedButtonId: 'menu', selectedDisplayText: 'Menu' } },
      { type: 'button_reply', text: 'Menu', selectedId: 'menu' }
    ],
    [
      'template button reply',
      { templateButtonReplyMessage: { selectedId: 'yes', selectedDisplayText: 'Yes', selectedIndex: 0 } },
      { type: 'button_reply', text: 'Yes', selectedId: 'yes' }
    ],
    [
      'native flow reply',
      { interactiveResponseMessage: { body: { text: 'Book' }, nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"id":"book-1"}' } } },
      { type: 'button_reply', text: 'Book', selectedId: 'book-1' }
    ],
    [
      'list reply',
      { listResponseMessage: { title: 'Pizza', singleSelectReply: { selectedRowId: 'row-pizza' } } },
      { type: 'list_reply', text: 'Pizza', selectedId: 'row-pizza' }
    ],
    ['ephemeral wrapper', { ephemeralMessage: { message: { conversation: 'vanishing' } } }, { type: 'text', text: 'vanishing' }],
    ['view once wrapper', { viewOnceMessageV2: { message: { imageMessage: { caption: 'once', mimetype: 'image/jpeg' } } } }, { type: 'image', text: 'once' }],
    ['poll', { pollCreationMessageV3: { name: 'Lunch?', options: [{ optionName: 'yes' }] } }, { type: 'poll', text: 'Lunch?' }]
  ]
  for (const [name, message, want] of cases) {
    it(name, () => {
      const m = toInboundMessage(dm(message), ctx)
      expect(m).not.toBeNull()
      expect({ type: m!.type, text: m!.text, ...(m!.selectedId ? { selectedId: m!.selectedId } : {}) }).toEqual(want)
    })
  }

  it('decoded protobuf messages (Long timestamps) map the same', () => {
    const decoded = proto.WebMessageInfo.decode(
      proto.WebMessageInfo.encode({ key: { remoteJid: PN, fromMe: false, id: 'P1' }, message: { conversation: 'hi' }, messageTimestamp: 1_800_000_123 }).finish()
    ) as unknown as WAMessage
    const m = toInboundMessage(decoded, ctx)!
    expect(m.timestamp).toBe(1_800_000_123)
    expect(m.text).toBe('hi')
  })
})

describe('toInboundMessage: what is ignored', () => {
  const ignored: Array<[string, WAMessage]> = [
    ['reaction', dm({ reactionMessage: { text: '👍', key: { id: 'X' } } })],
    ['protocol (revoke)', dm({ protocolMessage: { type: proto.Message.ProtocolMessage.Type.REVOKE, key: { id: 'X' } } })],
    ['poll vote', dm({ pollUpdateMessage: { pollCreationMessageKey: { id: 'X' } } })],
    ['sender key distribution only', dm({ senderKeyDistributionMessage: { groupId: GROUP } })],
    ['group stub', waMessage({ key: { remoteJid: GROUP, id: 'S1', fromMe: false }, messageStubType: 27 })],
    ['no content', dm(undefined)],
    ['no id', waMessage({ key: { remoteJid: PN, fromMe: false }, message: { conversation: 'x' } })]
  ]
  for (const [name, msg] of ignored) it(name, () => expect(toInboundMessage(msg, ctx)).toBeNull())

  it('a CIPHERTEXT stub (not decrypted yet) is an undecryptable placeholder with the id the real message will have', () => {
    const m = toInboundMessage(dm(undefined, { messageStubType: proto.WebMessageInfo.StubType.CIPHERTEXT }), ctx)
    expect(m).toMatchObject({ type: 'undecryptable', text: '', fromMe: false })
    expect(m?.id).toBeTruthy()
  })
})

describe('toInboundMessage: addressing', () => {
  it('a 1:1 message by phone-number JID with its LID alternative', () => {
    const m = toInboundMessage(
      waMessage({ key: { remoteJid: PN, remoteJidAlt: LID, fromMe: false, id: 'A1' }, message: { conversation: 'x' }, pushName: 'Ana' }),
      ctx
    )!
    expect(m).toMatchObject({ id: 'A1', chatId: PN, senderId: PN, senderPn: PN, senderLid: LID, pushName: 'Ana', fromMe: false })
  })

  it('a 1:1 message addressed by LID carries the phone number from remoteJidAlt', () => {
    const m = toInboundMessage(waMessage({ key: { remoteJid: LID, remoteJidAlt: '15551234567:3@s.whatsapp.net', fromMe: false, id: 'A2' }, message: { conversation: 'x' } }), ctx)!
    expect(m).toMatchObject({ chatId: LID, senderId: LID, senderPn: PN, senderLid: LID })
  })

  it('a group message: chat is the group, sender the participant (LID) with participantAlt', () => {
    const m = toInboundMessage(
      waMessage({ key: { remoteJid: GROUP, participant: `201234567890123:12@lid`, participantAlt: PN, fromMe: false, id: 'G1' }, message: { conversation: 'hi all' }, pushName: 'Ana' }),
      ctx
    )!
    expect(m).toMatchObject({ chatId: GROUP, senderId: LID, senderPn: PN, senderLid: LID, text: 'hi all' })
  })

  it('own messages from the phone are fromMe; the offline flag is the caller’s', () => {
    const m = toInboundMessage(waMessage({ key: { remoteJid: PN, fromMe: true, id: 'O1' }, message: { conversation: 'sent from phone' } }), { ...ctx, offline: true })!
    expect(m.fromMe).toBe(true)
    expect(m.offline).toBe(true)
  })

  it('media metadata is kept (mimetype, file name, size) for the log and webhook', () => {
    const m = toInboundMessage(dm({ documentMessage: { mimetype: 'application/pdf', fileName: 'menu.pdf', fileLength: 34567 } }), ctx)!
    expect(m.media).toEqual({ mimetype: 'application/pdf', fileName: 'menu.pdf', size: 34567 })
  })

  it('status broadcasts pass through (the bot engine skips them)', () => {
    const m = toInboundMessage(waMessage({ key: { remoteJid: 'status@broadcast', participant: PN, fromMe: false, id: 'ST' }, message: { conversation: 'story' } }), ctx)!
    expect(m.chatId).toBe('status@broadcast')
  })

  it('a missing timestamp falls back to now', () => {
    const m = toInboundMessage({ key: { remoteJid: PN, id: 'T', fromMe: false }, message: { conversation: 'x' } } as WAMessage, ctx)!
    expect(m.timestamp).toBe(ctx.nowSeconds)
  })
})

describe('helpers', () => {
  it('stripDevice drops device suffixes of user JIDs and LIDs only', () => {
    expect(stripDevice('15551234567:12@s.whatsapp.net')).toBe(PN)
    expect(stripDevice('201234567890123:3@lid')).toBe(LID)
    expect(stripDevice('15551234567@c.us')).toBe(PN)
    expect(stripDevice(GROUP)).toBe(GROUP)
  })

  it('toSeconds reads numbers, strings and Longs', () => {
    expect(toSeconds(5)).toBe(5)
    expect(toSeconds('7')).toBe(7)
    expect(toSeconds({ toNumber: () => 9 })).toBe(9)
    expect(toSeconds(null)).toBe(0)
  })
})
