/**
 * Changes read from `messages.upsert` (channel/baileys/message-changes.ts): edits (plain and wrapped
 * as phones send them), deletions, reactions, and poll votes decrypted with the library's
 * decryptPollVote under either form of the voter's JID — the votes built as a phone builds them
 * (test/support/wa-server/message-changes.ts).
 */
import { proto, type WAMessage } from 'baileys'
import { describe, expect, it } from 'vitest'
import { decryptVote, toMessageChange, type PendingVote } from '../../../src/main/channel/baileys/message-changes'
import { waMessage } from '../../helpers/fake-baileys'
import { editOf, pollOf, voteOf } from '../../support/wa-server/message-changes'

const PN = '15551234567@s.whatsapp.net'
const LID = '220000000000001@lid'
const ME = '15550001111@s.whatsapp.net'
const ctx = { offline: false, nowSeconds: 1_900_000_000 }
const from = (message: WAMessage['message'], key: Partial<WAMessage['key']> = {}): WAMessage =>
  waMessage({ key: { remoteJid: PN, fromMe: false, id: 'CHG1', ...key }, message, messageTimestamp: 1_800_000_000 })

describe('toMessageChange', () => {
  it('reads an edit as phones wrap it, with the edit’s own time', () => {
    const { message } = editOf({ remoteJid: ME, id: 'M1', fromMe: true }, '3 pizzas', 1_800_000_005_000)
    expect(toMessageChange(from(message), ctx)).toMatchObject({ kind: 'edit', id: 'M1', changeId: 'CHG1', chatId: PN, senderId: PN, text: '3 pizzas', timestamp: 1_800_000_005 })
  })

  it('reads a deletion and a reaction (removal included); an ordinary message is none', () => {
    expect(toMessageChange(from({ protocolMessage: { type: proto.Message.ProtocolMessage.Type.REVOKE, key: { id: 'M1' } } }), ctx)).toMatchObject({ kind: 'delete', id: 'M1' })
    expect(toMessageChange(from({ reactionMessage: { key: { id: 'M1' }, text: '' } }), ctx)).toMatchObject({ kind: 'reaction', id: 'M1', emoji: '' })
    expect(toMessageChange(from({ conversation: 'hi' }), ctx)).toBeNull()
    expect(toMessageChange(from({ protocolMessage: { type: proto.Message.ProtocolMessage.Type.EPHEMERAL_SETTING } }), ctx)).toBeNull()
  })

  it('decrypts a vote signed with the LID forms, and refuses a wrong secret', () => {
    const poll = pollOf('Friday?', ['Margherita', 'Diavola'])
    const pollMsg = waMessage({ key: { remoteJid: PN, fromMe: true, id: 'POLL1' }, message: poll.message })
    const vote = voteOf({ key: { remoteJid: ME, id: 'POLL1', fromMe: false }, secret: poll.secret, creatorJid: '210000000000001@lid' }, LID, ['Diavola'])
    const pending = toMessageChange(from(vote.message, { remoteJid: LID, remoteJidAlt: PN }), ctx) as PendingVote
    expect(pending).toMatchObject({ kind: 'pending_vote', pollKey: { id: 'POLL1' } })
    expect(decryptVote(pending, pollMsg, [ME, '210000000000001@lid'])).toEqual(['Diavola'])
    expect(decryptVote(pending, pollMsg, [ME])).toBeNull()
    const other = waMessage({ key: { remoteJid: PN, fromMe: true, id: 'POLL1' }, message: pollOf('Friday?', ['Margherita', 'Diavola']).message })
    expect(decryptVote(pending, other, [ME, '210000000000001@lid'])).toBeNull()
  })
})
