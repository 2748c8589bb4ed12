/** Pure: survey responses as CSV (RFC 4180 quoting), one row per run, one column per question. */
import type { SurveyResponseView } from '../../shared/contract'

function cell(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v
}

/** Columns: chat, name, status, started, completed, then each step's question in `questions` order. */
export function responsesToCsv(runs: SurveyResponseView[], questions: Array<{ id: string; question: string }>): string {
  const header = ['chatId', 'pushName', 'status', 'startedAt', 'completedAt', ...questions.map((q) => q.question)]
  const rows = runs.map((r) => {
    const byStep = new Map(r.answers.map((a) => [a.step_id, a.answer]))
    return [r.chatId, r.pushName ?? '', r.status, r.startedAt, r.completedAt ?? '', ...questions.map((q) => byStep.get(q.id) ?? '')]
  })
  return [header, ...rows].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n'
}
