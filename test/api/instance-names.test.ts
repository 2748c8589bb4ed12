/**
 * Instances nobody named can be told apart (docs/design.md §5): the first is "Chatapp Bot", the next
 * "Instance 2", and once linked an automatic name becomes the WhatsApp number; a name the owner chose
 * stays.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { linkedName, newInstanceName } from '../../src/main/services/instances/instance-names'
import { makeHarness, type Harness } from '../helpers/harness'

describe('the rule', () => {
  it('names new instances, and renames an automatic name once linked', () => {
    expect(newInstanceName([])).toBe('Chatapp Bot')
    expect(newInstanceName(['Chatapp Bot'])).toBe('Instance 2')
    expect(newInstanceName(['Pizzeria', 'Instance 3'])).toBe('Instance 4')
    expect(newInstanceName(['Chatapp Bot', 'Instance 3'])).toBe('Instance 4')
    expect(newInstanceName(['a', 'Instance 4', 'Instance 3'])).toBe('Instance 5')
    expect(linkedName('Instance 2', '15550102000', ['Chatapp Bot'])).toBe('+15550102000')
    expect(linkedName('Chatapp Bot', '15550102000', ['Chatapp Bot'])).toBe('+15550102000')
    expect(linkedName('Chatapp Bot', '15550102000', ['Pizzeria'])).toBeNull()
    expect(linkedName('Pizzeria', '15550102000', ['Pizzeria'])).toBeNull()
    expect(linkedName('Instance 2b', '15550102000', [])).toBeNull()
  })
})

describe('on the API', () => {
  let h: Harness
  beforeEach(async () => {
    h = await makeHarness()
  })
  afterEach(async () => {
    await h.close()
  })

  it('two new instances: "Chatapp Bot" and "Instance 2"; the second takes its number once linked; a chosen name stays', async () => {
    const first = await h.connectedInstance()
    expect(h.core.instances.get(first.inst._id).settings.bot_name).toBe('Chatapp Bot')
    const second = await h.createInstance()
    expect(second.settings.bot_name).toBe('Instance 2')
    const creds = { session_id: second.session_id, access_token: second.settings.access_token }
    await h.call({ method: 'POST', url: '/chatapp/init', payload: creds })
    const scan = await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${new URLSearchParams(creds)}` })
    const number = scan.json.data.bot_number as string
    expect(h.core.instances.get(second._id).settings.bot_name).toBe(`+${number}`)
    // The first keeps its name: it is the only "Chatapp Bot".
    expect(h.core.instances.get(first.inst._id).settings.bot_name).toBe('Chatapp Bot')
    const named = (await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', payload: { channel: 'sandbox', name: 'Deliveries' } })).json.data
    expect(named.settings.bot_name).toBe('Deliveries')
    const namedCreds = { session_id: named.session_id, access_token: named.settings.access_token }
    await h.call({ method: 'POST', url: '/chatapp/init', payload: namedCreds })
    await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${new URLSearchParams(namedCreds)}` })
    expect(h.core.instances.get(named._id).settings.bot_name).toBe('Deliveries')
  })
})
