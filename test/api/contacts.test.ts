/**
 * Contacts and contact groups in the original service's shapes (docs/design.md §17): by hand and collected
 * from conversations; the inbox names a customer by their contact name; `add_to_group` with a contact
 * group's id puts the customer in that group.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
let qs: string
let creds: { session_id: string; access_token: string }
beforeEach(async () => {
  h = await makeHarness()
  ;({ qs, creds } = await h.connectedInstance())
  await call('PUT', '/chatapp/updateActions', { send_default_msg: false })
})
afterEach(async () => {
  await h.close()
})

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => h.instanceApi(qs)(method, url, payload)

it('creates, lists, changes and deletes contacts and groups with the original messages and shapes', async () => {
  const group = await call('POST', '/contact_groups', { title: 'Regulars' })
  expect(group.message).toBe('ContactGroup group created successfully!')
  expect(group.data).toMatchObject({ title: 'Regulars', is_default: false, __v: 0 })
  const made = await call('POST', '/contact', { name: 'Banky', number: '+1 (555) 000-1111', group_id: group.data._id, labels: ['vip'] })
  expect(made.data).toMatchObject({ name: 'Banky', number: '15550001111', group_id: group.data._id, channel: 'whatsapp', labels: ['vip'], opted_out: false, last_seen_at: null, __v: 0 })
  expect((await call('GET', '/contact')).data.map((c: { name: string }) => c.name)).toEqual(['Banky'])
  const twice = await h.call({ method: 'POST', url: `/contact?${qs}`, payload: { name: 'Banky again', number: '15550001111' } })
  expect([twice.statusCode, twice.json.message]).toEqual([409, '+15550001111 is a contact already (Banky); change that one instead.'])
  expect((await call('PUT', `/contact/${made.data._id}`, { opted_out: true, notes: 'prefers calls' })).data).toMatchObject({ opted_out: true, notes: 'prefers calls', __v: 1 })
  expect((await call('GET', '/contact_groups')).message).toBe('ContactGroup group fetched successfully!')
  const gone = await call('DELETE', `/contact_groups/${group.data._id}`)
  expect(gone).toMatchObject({ message: 'ContactGroup group deleted successfully!', data: { n: 1, ok: 1, deletedCount: 1 } })
  expect((await call('GET', `/contact/${made.data._id}`)).data.group_id).toBeNull()
  expect((await call('DELETE', `/contact/${made.data._id}`)).data).toEqual({ n: 1, ok: 1, deletedCount: 1 })
  const bad = await h.call({ method: 'POST', url: `/contact?${qs}`, payload: { name: 'X', number: 'call me', group_id: 'nope' } })
  expect(bad.statusCode).toBe(400)
  expect(bad.json.error.details[0]).toMatchObject({ field: 'number' })
})

it('collects customers from conversations and names them in the inbox by their contact name', async () => {
  await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550002222', message: 'hello', pushName: 'Bo' })
  const [bo] = (await call('GET', '/contact')).data
  expect(bo).toMatchObject({ name: 'Bo', number: '15550002222', last_seen_at: expect.any(String) })
  await call('PUT', `/contact/${bo._id}`, { name: 'Bo Rossi (table 4)' })
  expect((await call('GET', '/chatapp/inbox')).data[0]).toMatchObject({ name: 'Bo Rossi (table 4)', phone: '15550002222' })
  // A second message does not make a second contact.
  await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550002222', message: 'again', pushName: 'Bo' })
  expect((await call('GET', '/contact')).data).toHaveLength(1)
})

it('add_to_group with a contact group id puts the customer in that group', async () => {
  const group = (await call('POST', '/contact_groups', { title: 'Newsletter' })).data
  const intent = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Join', keyword: 'join', reply: 'You are in!', action: { add_to_group: group._id } } })
  expect(intent.statusCode, intent.body).toBe(200)
  const res = await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550003333', message: 'join', pushName: 'Cy' })
  expect(res.data.replies.map((r: { text: string }) => r.text)).toEqual(['You are in!'])
  const contacts = (await call('GET', '/contact')).data
  expect(contacts).toEqual([expect.objectContaining({ number: '15550003333', name: 'Cy', group_id: group._id })])
  const activity = (await call('GET', '/chatapp/bot/activity')).data
  expect(activity.at(-1).actions).toEqual([{ action: 'add_to_group', ok: true }])
  const wrong = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Bad', keyword: 'bad', reply: 'x', action: { add_to_group: 'no-such-group' } } })
  expect(wrong.statusCode).toBe(400)
  expect(wrong.json.error.details[0].problem).toContain('contact group id of this instance or a WhatsApp group id')
})

it('shares a contact record as a vCard when the text send names it in contactId', async () => {
  const bea = (await call('POST', '/contact', { name: 'Bea Diaz', number: '+1 555 000 4444' })).data
  const res = await call('POST', '/chatapp/message', { chatId: '15550005555', contactId: bea._id })
  expect(res.data.contact.contactMessage).toMatchObject({ displayName: 'Bea Diaz', vcard: expect.stringContaining('FN:Bea Diaz') })
  expect(res.data.contact.contactMessage.vcard).toContain('15550004444')
  // A number still works as before.
  const byNumber = await call('POST', '/chatapp/message', { chatId: '15550005555', contactId: '15550006666' })
  expect(byNumber.data.contact.contactMessage.displayName).toBe('+15550006666')
})

it('a customer who writes STOP is opted out and told once, at any hour; START brings them back', async () => {
  await call('PUT', '/chatapp/updateActiveDays', { monday: false, tuesday: false, wednesday: false, thursday: false, friday: false, saturday: false, sunday: false })
  const stop = await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550007777', message: ' stop ', pushName: 'Dee' })
  expect(stop.data.message.bot).toEqual({ action: 'opt_out' })
  expect(stop.data.replies.map((r: { text: string }) => r.text)).toEqual(['You will get no more messages from us. Write START to hear from us again.'])
  expect((await call('GET', '/contact')).data).toEqual([expect.objectContaining({ number: '15550007777', name: 'Dee', opted_out: true })])
  // Only the whole message counts: "please stop by" is no opt-out.
  expect((await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550007777', message: 'please stop by', pushName: 'Dee' })).data.message.bot).toEqual({ action: 'none', reason: 'outside_hours' })
  await call('PUT', '/chatapp/optout', { optin_keyword: 'START,RIPARTI', optin_reply: 'Bentornata!' })
  const back = await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550007777', message: 'Riparti', pushName: 'Dee' })
  expect(back.data.replies.map((r: { text: string }) => r.text)).toEqual(['Bentornata!'])
  expect((await call('GET', '/contact')).data[0].opted_out).toBe(false)
})

it('the opt-out words and replies follow the bot’s language until the owner changes them', async () => {
  await call('PUT', '/chatapp/updateGeneral', { bot_lang: 'es' })
  const baja = await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550008888', message: 'Baja', pushName: 'Lu' })
  expect(baja.data.message.bot).toEqual({ action: 'opt_out' })
  expect(baja.data.replies.map((r: { text: string }) => r.text)).toEqual(['No recibirás más mensajes nuestros. Escribe ALTA para volver a recibirlos.'])
  expect((await call('PUT', '/chatapp/optout', {})).data).toMatchObject({ optout_keyword: 'STOP,BAJA,PARAR,UNSUBSCRIBE', optin_keyword: 'START,ALTA,SUBSCRIBE' })
})

it('labels: coloured, on contacts and their conversations, filtered in the inbox, renamed and deleted everywhere', async () => {
  const vip = await call('POST', '/label', { name: 'vip', color: 'grape' })
  expect(vip.data).toMatchObject({ name: 'vip', color: 'grape' })
  expect((await h.call({ method: 'POST', url: '/label', payload: { name: 'VIP' } })).statusCode).toBe(409)
  await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550004444', message: 'hi', pushName: 'Dee' })
  await call('POST', '/chatapp/sandbox/inbound', { chatId: '15550005555', message: 'hello', pushName: 'Eve' })
  const tagged = await call('PUT', '/chatapp/inbox/labels', { chatId: '15550004444', labels: ['vip', 'wholesale'] })
  expect(tagged.data).toMatchObject({ name: 'Dee', number: '15550004444', labels: ['vip', 'wholesale'] })
  // A label named for the first time is made, with a colour of its own.
  const labels = (await call('GET', '/label')).data as { _id: string; name: string; color: string }[]
  expect(labels.map((l) => [l.name, l.color])).toEqual([
    ['vip', 'grape'],
    ['wholesale', 'green']
  ])
  expect((await call('GET', '/chatapp/inbox?label=VIP')).data.map((c: { chatId: string; labels: string[] }) => [c.chatId, c.labels])).toEqual([['15550004444@s.whatsapp.net', ['vip', 'wholesale']]])
  await call('PUT', `/label/${vip.data._id}`, { name: 'gold' })
  expect((await call('GET', '/chatapp/inbox?label=gold')).data[0].labels).toEqual(['gold', 'wholesale'])
  await call('DELETE', `/label/${labels[1]!._id}`)
  expect((await call('GET', `/contact/${tagged.data._id}`)).data.labels).toEqual(['gold'])
  const group = await h.call({ method: 'PUT', url: `/chatapp/inbox/labels?${qs}`, payload: { chatId: '120363000000000001@g.us', labels: ['x'] } })
  expect(group.statusCode).toBe(404)
})
