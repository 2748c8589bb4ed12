/**
 * The bot engine end to end through the sandbox (docs/design.md §9–§10): every gate, the match
 * rules in several scripts, spintax and [name], the default-message window, option replies, a whole
 * survey with an invalid answer and an expiry, each action (notification e-mail through a real SMTP
 * server started here), and the activity log.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import { makeHarness, type Harness } from '../helpers/harness'
import { multipart, pdf, png } from '../helpers/fixtures'
import type { LoggedMessage } from '../../src/shared/schemas/records'

let h: Harness
let now: Date
let qs: string
let creds: { session_id: string; access_token: string }

const mails: Array<{ to: string[]; data: string }> = []
let smtp: SMTPServer
let smtpPort: number

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, cb) {
      let data = ''
      stream.on('data', (c: Buffer) => (data += c.toString()))
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), data })
        cb()
      })
    }
  })
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r))
  smtpPort = (smtp.server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((r) => smtp.close(() => r())))

beforeEach(async () => {
  // Wednesday 2026-11-18 12:00 UTC.
  now = new Date('2026-11-18T12:00:00.000Z')
  mails.length = 0
  h = await makeHarness({ clock: { now: () => now.getTime() }, bot: { surveyIdleMs: 30 * 60_000, defaultMessageWindowMs: 24 * 3600_000 } })
  const c = await h.connectedInstance()
  ;({ qs, creds } = c)
  await put('/chatapp/updateGeneral', { bot_timezone: 'UTC' })
})
afterEach(async () => {
  await h.close()
})

const CUSTOMER = '15550001111'

async function put(url: string, payload: object) {
  const res = await h.call({ method: 'PUT', url: `${url}?${qs}`, payload })
  expect(res.statusCode, res.body).toBe(200)
}

async function intent(title: string, keyword: string, reply: string, action?: object) {
  const res = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title, keyword, reply, ...(action ? { action } : {}) } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

/** Sends an inbound message; answers the bot's replies (outbound messages to that chat). */
async function say(message: string, extra: Record<string, unknown> = {}): Promise<LoggedMessage[]> {
  const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: CUSTOMER, message, pushName: 'Ann', ...extra } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data.replies
}
const texts = (replies: LoggedMessage[]) => replies.map((r) => r.text)

describe('replies and matching', () => {
  beforeEach(async () => {
    await put('/chatapp/updateActions', { send_default_msg: false })
  })

  it('answers the README example intents', async () => {
    await intent('Greeting', 'hi,hello', 'Hello [name]! How can we help?')
    await intent('Hours', 'opening hours,open', 'We are open 9:00–18:00.')
    expect(texts(await say('hi'))).toEqual(['Hello Ann! How can we help?'])
    expect(texts(await say('When are you OPEN today?'))).toEqual(['We are open 9:00–18:00.'])
    expect(texts(await say('this is nothing'))).toEqual([])
    const replies = await say('Hello!')
    expect(replies[0]).toMatchObject({ source: 'bot', fromMe: true, chatId: `${CUSTOMER}@s.whatsapp.net` })
  })

  it('matches whole words and phrases in any script', async () => {
    await intent('Hindi', 'नमस्ते', 'hindi')
    await intent('Arabic', 'مرحبا', 'arabic')
    await intent('Chinese', '你好', 'chinese')
    await intent('Thumbs', '👍', 'thumbs')
    await intent('Accent', 'café', 'accent')
    expect(texts(await say('नमस्ते दोस्त'))).toEqual(['hindi'])
    expect(texts(await say('مرحبا كيف حالك'))).toEqual(['arabic'])
    expect(texts(await say('你好，我想订餐'))).toEqual(['chinese'])
    expect(texts(await say('thanks 👍'))).toEqual(['thumbs'])
    expect(texts(await say('un CAFÉ noir'))).toEqual(['accent'])
    expect(texts(await say('cafe'))).toEqual([])
  })

  it('never matches inside a word; exact beats contained, then longest, then oldest', async () => {
    await intent('Hi', 'hi', 'short')
    expect(texts(await say('this is high'))).toEqual([])
    await intent('Price', 'price', 'price')
    await intent('PriceList', 'price list', 'price list')
    expect(texts(await say('send the price list please'))).toEqual(['price list'])
    await intent('PriceAgain', 'price', 'newer price')
    expect(texts(await say('what price?'))).toEqual(['price'])
    await intent('ExactLong', 'hi there friend', 'long')
    expect(texts(await say('hi'))).toEqual(['short'])
    expect(texts(await say('hi there friend'))).toEqual(['long'])
  })

  it('keeps the index current as intents change', async () => {
    const i = await intent('Menu', 'menu', 'the menu')
    expect(texts(await say('menu'))).toEqual(['the menu'])
    await h.call({ method: 'PUT', url: `/intent/${i._id}?${qs}`, payload: { keyword: 'carte' } })
    expect(texts(await say('menu'))).toEqual([])
    expect(texts(await say('la carte'))).toEqual(['the menu'])
    await h.call({ method: 'DELETE', url: `/intent/${i._id}?${qs}` })
    expect(texts(await say('la carte'))).toEqual([])
  })

  it('renders spintax and [name], falling back to the number', async () => {
    await intent('Greeting', 'hi', '{Hi|Hello|Hey} [name]{!|.}')
    const seen = new Set<string>()
    for (let n = 0; n < 30; n++) seen.add(texts(await say('hi', { id: `S${n}` }))[0]!)
    for (const t of seen) expect(t).toMatch(/^(Hi|Hello|Hey) Ann[!.]$/)
    expect(seen.size).toBeGreaterThan(2)
    const anon = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550002222', message: 'hi' } })
    expect(anon.json.data.replies[0].text).toMatch(/^(Hi|Hello|Hey) 15550002222[!.]$/)
  })

  it('counts a reply with an option number or title as pressing it', async () => {
    await h.call({
      method: 'POST',
      url: `/chatapp/message/button?${qs}`,
      payload: { chatId: CUSTOMER, btndata: { text: 'Choose', buttons: [{ type: 'replyButton', title: 'Menu' }, { type: 'replyButton', title: 'Opening times' }] } }
    })
    await intent('Times', 'opening times', 'We open at 9.')
    await intent('Menu', 'menu', 'Here is the menu.')
    expect(texts(await say('2'))).toEqual(['We open at 9.'])
    expect(texts(await say('1'))).toEqual(['Here is the menu.'])
    await h.call({
      method: 'POST',
      url: `/chatapp/message/list?${qs}`,
      payload: { chatId: CUSTOMER, msgdata: { text: 'Pick', sections: [{ title: 'Food', rows: [{ title: 'Pizza', rowId: 'menu' }] }] } }
    })
    // Row 1's title matches nothing, its rowId "menu" does.
    expect(texts(await say('1'))).toEqual(['Here is the menu.'])
  })
})

describe('gates', () => {
  beforeEach(async () => {
    await intent('Greeting', 'hi', 'hello!')
    await put('/chatapp/updateActions', { send_default_msg: false })
  })

  it('ignores own messages, status broadcasts and duplicates', async () => {
    expect(await say('hi', { fromMe: true })).toEqual([])
    // The owner's own message paused the bot for that chat (hand-off); handing it back lets it answer.
    expect((await h.call({ method: 'POST', url: `/chatapp/handoff/resume?${qs}`, payload: { chatId: CUSTOMER } })).json.data).toEqual({ resumed: true })
    expect(await say('hi', { chatId: 'status@broadcast', participant: CUSTOMER })).toEqual([])
    expect(texts(await say('hi', { id: 'DUP1' }))).toEqual(['hello!'])
    expect(await say('hi', { id: 'DUP1' })).toEqual([])
  })

  it('a redelivered answer to a survey changes nothing: the survey stays at the step the first delivery left it', async () => {
    await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'Booking', keyword: 'book', reply: 'For how many people?', sort_id: 1 } })
    await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'Booking', keyword: '', reply: 'At what time?', sort_id: 2 } })
    await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'Booking', keyword: '', reply: 'See you then!', sort_id: 3 } })
    expect(texts(await say('book'))).toEqual(['For how many people?'])
    expect(texts(await say('four', { id: 'ANS1' }))).toEqual(['At what time?'])
    // The same message again (a reconnect redelivers it): no reply, and the run did not move on.
    expect(await say('four', { id: 'ANS1' })).toEqual([])
    expect(texts(await say('at 8'))).toEqual(['See you then!'])
  })

  it('a message redelivered after the default message’s window does not use up the next one', async () => {
    await put('/chatapp/updateActions', { send_default_msg: true })
    await put('/chatapp/updateGeneral', { default_msg: 'We will answer soon.' })
    expect(texts(await say('anyone there?', { id: 'OLD1' }))).toEqual(['We will answer soon.'])
    now = new Date(now.getTime() + 25 * 3600_000)
    // A day later the phone redelivers it: dropped, and the window's default message is still unclaimed.
    expect(await say('anyone there?', { id: 'OLD1' })).toEqual([])
    expect(texts(await say('hello again'))).toEqual(['We will answer soon.'])
  })

  it('honours reply_msgs, reply_group_msgs and reply_unread_msgs', async () => {
    const group = { chatId: '120363000000000001@g.us', participant: CUSTOMER }
    expect(texts(await say('hi', group))).toEqual(['hello!'])
    expect(texts(await say('hi', { offline: true }))).toEqual(['hello!'])
    await put('/chatapp/updateActions', { reply_group_msgs: false, reply_unread_msgs: false })
    expect(await say('hi', group)).toEqual([])
    expect(await say('hi', { offline: true })).toEqual([])
    expect(texts(await say('hi'))).toEqual(['hello!'])
    await put('/chatapp/updateActions', { reply_msgs: false })
    expect(await say('hi')).toEqual([])
  })

  it('answers only on active days and hours, in bot_timezone, overnight windows included', async () => {
    await put('/chatapp/updateActiveDays', { wednesday: false })
    expect(await say('hi')).toEqual([])
    await put('/chatapp/updateActiveDays', { wednesday: true })
    await put('/chatapp/updateActiveHours', { from: '9:00', to: '11:00' })
    expect(await say('hi')).toEqual([]) // 12:00 UTC
    await put('/chatapp/updateGeneral', { bot_timezone: 'Asia/Kolkata' }) // 17:30 there
    await put('/chatapp/updateActiveHours', { from: '17:00', to: '18:00' })
    expect(texts(await say('hi'))).toEqual(['hello!'])
    await put('/chatapp/updateGeneral', { bot_timezone: 'GMT-3' }) // 09:00 there
    expect(await say('hi')).toEqual([])
    await put('/chatapp/updateActiveHours', { from: '22:00', to: '9:30' })
    expect(texts(await say('hi'))).toEqual(['hello!'])
    // America/New_York across the DST change: 2026-11-01 is standard time (UTC-5) after 2:00.
    now = new Date('2026-11-02T13:30:00.000Z') // Monday 08:30 in New York (EST)
    await put('/chatapp/updateGeneral', { bot_timezone: 'America/New_York' })
    await put('/chatapp/updateActiveHours', { from: '8:00', to: '9:00' })
    expect(texts(await say('hi'))).toEqual(['hello!'])
    now = new Date('2026-10-30T13:30:00.000Z') // Friday 09:30 in New York (EDT)
    expect(await say('hi')).toEqual([])
  })
})

describe('default message', () => {
  it('is sent at most once per contact per window', async () => {
    await put('/chatapp/updateGeneral', { default_msg: '{Hi|Hello} [name], we will reply soon.' })
    expect(texts(await say('anything'))).toEqual([expect.stringMatching(/^(Hi|Hello) Ann, we will reply soon\.$/)])
    expect(await say('again')).toEqual([])
    const other = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550002222', message: 'x' } })
    expect(other.json.data.replies).toHaveLength(1)
    now = new Date(now.getTime() + 23 * 3600_000)
    expect(await say('still quiet')).toEqual([])
    now = new Date(now.getTime() + 2 * 3600_000)
    expect(await say('next day')).toHaveLength(1)
    await put('/chatapp/updateGeneral', { default_msg: false })
    now = new Date(now.getTime() + 48 * 3600_000)
    expect(await say('off')).toEqual([])
  })

  it('remembers the window across a restart', async () => {
    expect(await say('anything')).toHaveLength(1)
    h = await h.restart()
    expect(await say('after restart')).toEqual([])
  })
})

describe('surveys', () => {
  async function step(title: string, sort_id: number, keyword: string, reply: string, action: object = {}) {
    const res = await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title, keyword, reply, sort_id, action } })
    expect(res.statusCode, res.body).toBe(200)
    return res.json.data
  }

  beforeEach(async () => {
    await put('/chatapp/updateActions', { send_default_msg: false })
  })

  it('runs a whole survey with an invalid answer, shows responses as JSON and CSV', async () => {
    const s1 = await step('Order', 1, 'order,buy', 'What would you like, [name]?')
    await step('Order', 2, 'small,medium,large', 'Which size: small, medium or large?')
    await step('Order', 3, '', 'Any note for the kitchen?')
    await intent('Buy intent', 'buy', 'intent should not win')
    expect(texts(await say('I want to buy'))).toEqual(['What would you like, Ann?'])
    expect(texts(await say('Pizza margherita'))).toEqual(['Which size: small, medium or large?'])
    expect(texts(await say('huge'))).toEqual(['Which size: small, medium or large?'])
    expect(texts(await say('Large please'))).toEqual(['Any note for the kitchen?'])
    expect(texts(await say('No onions, "thanks"'))).toEqual([])
    const res = await h.call({ method: 'GET', url: `/survey/${s1._id}/responses?${qs}` })
    expect(res.json.data).toHaveLength(1)
    const run = res.json.data[0]
    expect(run).toMatchObject({ chatId: `${CUSTOMER}@s.whatsapp.net`, pushName: 'Ann', status: 'completed' })
    expect(run.answers.map((a: { answer: string }) => a.answer)).toEqual(['Pizza margherita', 'Large please', 'No onions, "thanks"'])
    expect(run.answers[1].question).toBe('Which size: small, medium or large?')
    const csv = await h.call({ method: 'GET', url: `/survey/${s1._id}/responses?${qs}&format=csv` })
    expect(csv.headers['content-type']).toMatch(/^text\/csv/)
    const lines = csv.body.trim().split('\n')
    expect(lines[0]).toBe('run_id,name,phone,status,handled,started,completed,"What would you like, [name]?","Which size: small, medium or large?",Any note for the kitchen?')
    expect(lines[1]).toContain(",Ann,'+15550001111,completed,no,2026-11-18 12:00,")
    expect(lines[1]).toMatch(/,Pizza margherita,Large please,"No onions, ""thanks"""$/)
    // After completion the trigger starts a new run.
    expect(texts(await say('order'))).toEqual(['What would you like, Ann?'])
  })

  it('exports answers and names that a spreadsheet would run as formulas as plain text (OWASP CSV injection)', async () => {
    const s1 = await step('Poll', 1, 'poll', 'Q1?')
    const questions = ['Q2?', 'Q3?', 'Q4?', 'Q5?']
    for (const [i, q] of questions.entries()) await step('Poll', i + 2, '', q)
    const answers = ['=1+1', "+cmd|' /C calc'!A0", '-2+3', '@SUM(1,1)', '=HYPERLINK("http://evil.example","x")']
    await say('poll', { pushName: '=cmd|calc' })
    for (const a of answers) await say(a, { pushName: '=cmd|calc' })
    const csv = await h.call({ method: 'GET', url: `/survey/${s1._id}/responses?${qs}&format=csv` })
    const row = csv.body.trim().split('\n')[1]!
    // Every dangerous cell starts with ' (and is quoted where it holds a double quote or a comma).
    expect(row).toContain(",'=cmd|calc,'+15550001111,completed,")
    expect(row).toContain(",'=1+1,")
    expect(row).toContain(",'+cmd|' /C calc'!A0,")
    expect(row).toContain(",'-2+3,")
    expect(row).toContain(`,"'@SUM(1,1)",`)
    expect(row).toMatch(/,"'=HYPERLINK\(""http:\/\/evil\.example"",""x""\)"$/)
    // The JSON form keeps what the customer wrote.
    const json = await h.call({ method: 'GET', url: `/survey/${s1._id}/responses?${qs}` })
    expect(json.json.data[0].answers.map((a: { answer: string }) => a.answer)).toEqual(answers)
  })

  it('expires an idle run; the next message is a new one', async () => {
    const s1 = await step('Feedback', 1, 'feedback', 'How was your visit?')
    await step('Feedback', 2, '', 'Would you come back?')
    await intent('Thanks', 'great', 'Glad to hear!')
    await say('feedback')
    now = new Date(now.getTime() + 31 * 60_000)
    expect(texts(await say('great'))).toEqual(['Glad to hear!'])
    const runs = (await h.call({ method: 'GET', url: `/survey/${s1._id}/responses?${qs}` })).json.data
    expect(runs.map((r: { status: string }) => r.status)).toEqual(['expired'])
    // The periodic sweep expires runs nobody answers.
    await say('feedback')
    now = new Date(now.getTime() + 31 * 60_000)
    expect(await h.core.bot.expireIdleRuns()).toBe(1)
  })

  it('start_survey starts at the named step and goes on from there', async () => {
    await step('Quiz', 1, 'quiz', 'Q1')
    const s2 = await step('Quiz', 2, '', 'Q2')
    await step('Quiz', 3, 'yes,no', 'Q3')
    await intent('Join', 'join', 'Welcome!', { start_survey: s2._id })
    expect(texts(await say('join'))).toEqual(['Welcome!', 'Q2'])
    expect(texts(await say('anything'))).toEqual(['Q3'])
    expect(texts(await say('yes'))).toEqual([])
  })
})

describe('actions', () => {
  beforeEach(async () => {
    await put('/chatapp/updateActions', { send_default_msg: false })
    await h.core.appSettings.setSmtp({ host: '127.0.0.1', port: smtpPort, secure: false, from: 'bot@shop.example' })
  })

  it('runs all seven actions in order; a failing one is logged and the others still run', async () => {
    const photo = (await h.call({ method: 'POST', url: `/attachment?${qs}`, ...multipart({}, { filename: 'menu.png', contentType: 'image/png', data: await png() }) })).json.data
    const doc = (await h.call({ method: 'POST', url: `/attachment?${qs}`, ...multipart({}, { filename: 'prices.pdf', contentType: 'application/pdf', data: pdf() }) })).json.data
    const q = (await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'Rate', keyword: '', reply: 'Rate us 1-5', sort_id: 1, action: {} } })).json.data
    await intent('Everything', 'everything', 'Here you go', {
      send_location: { lat: '28.6139', lng: '77.2090', loc: 'Shop' },
      send_contact: { name: 'Owner', number: '+1 555 000 9999' },
      send_photo: photo._id,
      send_file: doc._id,
      send_notification: { email: 'owner@shop.example', chatapp_number: '15550009999' },
      add_to_group: '999000000000001@g.us',
      start_survey: q._id
    })
    const replies = await say('I want everything')
    expect(replies.map((r) => `${r.type}:${r.text}`)).toEqual([
      'text:Here you go',
      'location:Shop',
      'contact:Owner',
      'image:',
      'document:prices.pdf',
      'text:Rate us 1-5'
    ])
    const log = (await h.call({ method: 'GET', url: `/chatapp/messages?${qs}&chatId=15550009999` })).json.data
    expect(log).toHaveLength(1)
    expect(log[0].text).toBe('🔔 Chatapp Bot: Ann (+15550001111) wrote "I want everything" (matched intent "Everything").')
    expect(mails).toHaveLength(1)
    expect(mails[0]!.to).toEqual(['owner@shop.example'])
    expect(mails[0]!.data).toContain('I want everything')
    const activity = (await h.call({ method: 'GET', url: `/chatapp/bot/activity?${qs}` })).json.data
    expect(activity).toHaveLength(1)
    expect(activity[0].matched).toBe('intent "Everything"')
    expect(activity[0].actions).toEqual([
      { action: 'send_location', ok: true },
      { action: 'send_contact', ok: true },
      { action: 'send_photo', ok: true },
      { action: 'send_file', ok: true },
      { action: 'send_notification', ok: true },
      { action: 'add_to_group', ok: false, error: 'The bot is not an admin of 999000000000001@g.us.' },
      { action: 'start_survey', ok: true }
    ])
  })

  it('adds the contact to a group where the bot is admin; reports SMTP trouble', async () => {
    await intent('Join', 'join', '', { add_to_group: '120363000000000009@g.us', send_notification: { email: 'owner@shop.example' } })
    await h.core.appSettings.setSmtp(null)
    expect(await say('join')).toEqual([])
    const activity = (await h.call({ method: 'GET', url: `/chatapp/bot/activity?${qs}` })).json.data
    expect(activity[0].actions).toEqual([
      { action: 'send_notification', ok: false, error: 'e-mail to owner@shop.example: SMTP is not configured in the app settings' },
      { action: 'add_to_group', ok: true }
    ])
  })
})
