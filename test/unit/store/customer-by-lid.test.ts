/**
 * A customer who hides the number behind a WhatsApp username is known only by a LID (docs/baileys.md
 * "Usernames"): the data layer keys their contact by the LID (`number` is the `…@lid` JID), reads the
 * contact back with the username their chat carries, finds their chat by username, and exports and
 * erases them by the LID as it does a number. On a real SQLite file and on a real PostgreSQL server.
 */
import { describe, expect, it } from 'vitest'
import type { Contact, LoggedMessage } from '../../../src/shared/schemas/records'
import type { Repositories } from '../../../src/main/store/repos'
import { tempStorageEach } from '../../helpers/temp-storage'
import { BACKENDS } from '../../helpers/postgres'

const LU = '220000000000001@lid'
const ANN = '15550001111@s.whatsapp.net'
const ANN_LID = '987654321@lid'
let n = 0
function msg(fields: Partial<LoggedMessage> = {}): LoggedMessage {
  n++
  return { id: `L${n}`, chatId: LU, senderId: LU, fromMe: false, pushName: 'Lu', type: 'text', text: `bread ${n}`, timestamp: 1_700_000_000_000 + n, status: 'RECEIVED', source: 'inbound', username: 'lu.bakes', ...fields }
}

function contact(fields: Partial<Contact>): Contact {
  const now = new Date().toISOString()
  return { _id: 'c1', name: 'Lu', number: LU, client_id: 'u', instance_id: 'i1', group_id: null, channel: 'whatsapp', labels: [], notes: '', opted_out: false, last_seen_at: null, createdAt: now, updatedAt: now, __v: 0, ...fields }
}

/** Lu's chat by LID (with a reply), Ann's chat by number and by her LID, and Lu's contact. */
async function seed(repos: Repositories): Promise<void> {
  await repos.messages.appendMany('i1', [
    msg({ text: 'two loaves please' }),
    msg({ fromMe: true, source: 'api', pushName: undefined, username: undefined, senderId: undefined, text: 'ready at 5' }),
    msg({ chatId: ANN, senderId: ANN, senderPn: ANN, pushName: 'Ann', username: undefined, text: 'order of Ann' }),
    msg({ chatId: ANN_LID, senderId: ANN_LID, senderPn: ANN, senderLid: ANN_LID, pushName: 'Ann', username: undefined, text: 'Ann by her LID' })
  ])
  await repos.contacts.put(contact({ opted_out: true }))
  await repos.contacts.put(contact({ _id: 'c2', name: 'Ann', number: '15550001111' }))
}

describe.each(BACKENDS)('on %s', (backend) => {
  let repos: Repositories
  tempStorageEach(backend, (fresh) => {
    repos = fresh.storage.repos
  })

  it('a contact keyed by a LID is read with the username of its chat; one keyed by a number has none', async () => {
    await seed(repos)
    expect(await repos.contacts.byNumber('i1', LU)).toMatchObject({ number: LU, username: 'lu.bakes', opted_out: true })
    const { items } = await repos.contacts.page({ instanceIds: ['i1'] }, 0, 10)
    expect(items.map((c) => [c.name, c.number, c.username])).toEqual([
      ['Lu', LU, 'lu.bakes'],
      ['Ann', '15550001111', undefined]
    ])
    expect((await repos.contacts.byNumbers('i1', [LU])).get(LU)?.username).toBe('lu.bakes')
    // Searched by the username (with or without "@", short or long), as by a name.
    for (const q of ['@Lu.Bak', 'bakes', 'lu']) expect((await repos.contacts.page({ instanceIds: ['i1'], q }, 0, 10)).items.map((c) => c.name), q).toEqual(['Lu'])
    expect((await repos.contacts.page({ instanceIds: ['i1'], q: 'ann' }, 0, 10)).items.map((c) => c.name)).toEqual(['Ann'])
    // The username is not stored on the contact: a later chat's username is what is shown.
    await repos.messages.append('i1', msg({ username: 'lu.bakery' }))
    expect((await repos.contacts.find('c1'))?.username).toBe('lu.bakery')
  })

  it('finds a chat by its username (any case) and the key a LID is filed under', async () => {
    await seed(repos)
    expect(await repos.customerData.chatOfUsername('i1', 'Lu.Bakes')).toBe(LU)
    expect(await repos.customerData.chatOfUsername('i1', 'nobody')).toBeNull()
    expect(await repos.customerData.chatOfUsername('i2', 'lu.bakes')).toBeNull()
    // A LID with no number is its own key; one filed under a number is that number's.
    expect(await repos.customerData.customerKey('i1', LU)).toBe(LU)
    expect(await repos.customerData.customerKey('i1', ANN_LID)).toBe('15550001111')
  })

  it('exports and erases a customer by the LID: their chat, contact and conversation, nobody else’s', async () => {
    await seed(repos)
    const data = await repos.customerData.exportCustomer('i1', LU)
    expect(data.messages.map((m) => m.text)).toEqual(['two loaves please', 'ready at 5'])
    expect(data.contact).toMatchObject({ _id: 'c1', number: LU })

    const { counts } = await repos.customerData.eraseCustomer('i1', LU, 'owner', new Date().toISOString(), 'e1')
    expect(counts).toMatchObject({ messages: 2, conversations: 1, contacts: 1 })
    expect(await repos.messages.list('i1', { chatId: LU })).toEqual([])
    expect(await repos.contacts.byNumber('i1', LU)).toBeUndefined()
    expect(await repos.customerData.chatOfUsername('i1', 'lu.bakes')).toBeNull()
    expect(await repos.customerData.erasedAt('i1', LU)).toEqual(expect.any(String))
    // Ann is untouched.
    expect((await repos.messages.list('i1', { chatId: ANN })).map((m) => m.text)).toEqual(['order of Ann'])
    expect((await repos.contacts.byNumber('i1', '15550001111'))?.name).toBe('Ann')
  })
})
