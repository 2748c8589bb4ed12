/** Pure renderer logic: the SSE frame parser, the responses CSV and the curl examples. */
import { describe, expect, it } from 'vitest'
import { SseParser } from '../../src/renderer/src/transport/sse-parser'
import { responsesToCsv } from '../../src/renderer/src/csv'
import { curlExamples } from '../../src/renderer/src/curl-examples'
import type { Instance } from '../../src/shared/schemas/records'

describe('SseParser', () => {
  it('joins frames split across chunks, skips comments and handles CRLF and multi-line data', () => {
    const p = new SseParser()
    expect(p.push(': connected\n\ndata: {"a"')).toEqual([])
    expect(p.push(':1}\n\ndata: x\r\ndata: y\r\n\r\n: ping\n\n')).toEqual(['{"a":1}', 'x\ny'])
    expect(p.push('data:z\n')).toEqual([])
    expect(p.push('\n')).toEqual(['z'])
  })
})

describe('responsesToCsv', () => {
  it('writes one row per run and one column per question, quoting commas, quotes and newlines', () => {
    const csv = responsesToCsv(
      [
        {
          _id: 'r1',
          chatId: '1555@s.whatsapp.net',
          pushName: 'Ann "A"',
          status: 'completed',
          startedAt: '2026-01-01T00:00:00.000Z',
          completedAt: '2026-01-01T00:01:00.000Z',
          answers: [
            { step_id: 's2', question: 'Why?', answer: 'fast, cheap', at: '' },
            { step_id: 's1', question: 'Score?', answer: '5', at: '' }
          ]
        },
        { _id: 'r2', chatId: '1666@s.whatsapp.net', pushName: null, status: 'in_progress', startedAt: 't', completedAt: null, answers: [{ step_id: 's1', question: 'Score?', answer: 'line1\nline2', at: '' }] }
      ],
      [
        { id: 's1', question: 'Score?' },
        { id: 's2', question: 'Why?' }
      ]
    )
    expect(csv.split('\r\n')).toEqual([
      'chatId,pushName,status,startedAt,completedAt,Score?,Why?',
      '1555@s.whatsapp.net,"Ann ""A""",completed,2026-01-01T00:00:00.000Z,2026-01-01T00:01:00.000Z,5,"fast, cheap"',
      '1666@s.whatsapp.net,,in_progress,t,,"line1\nline2",',
      ''
    ])
  })
})

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
