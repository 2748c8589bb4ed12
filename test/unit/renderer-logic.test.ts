/** Pure renderer logic: the curl examples. */
import { describe, expect, it } from 'vitest'
import { curlExamples } from '../../src/renderer/src/curl-examples'
import type { Instance } from '../../src/shared/schemas/records'

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
