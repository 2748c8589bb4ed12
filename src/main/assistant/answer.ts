/**
 * What the model's answer comes to (docs/assistant.md "When the model fails"): a reply to
 * send, a hand-off to a person, or an unusable answer (the fallback then answers). Small local models
 * follow the tool schema less reliably than hosted ones, so a hand-off is also recognised when the
 * model writes the call as text (JSON, Hermes/Qwen `<tool_call>` tags, `handoff_to_human(...)`), and
 * the reasoning that some models print (`<think>…</think>`) is dropped. Pure.
 */
import { HANDOFF_TOOL } from './prompt'
import type { ChatAnswer } from './model-client'

export type Interpretation = { kind: 'reply'; text: string } | { kind: 'handoff'; reason: string } | { kind: 'unusable'; why: string }

/** The longest reply sent (WhatsApp takes more; a customer reads less). */
export const MAX_REPLY_CHARS = 4000

function reasonOf(args: unknown): string {
  if (typeof args === 'string') {
    try {
      return reasonOf(JSON.parse(args))
    } catch {
      return args.trim()
    }
  }
  const r = (args as { reason?: unknown } | null)?.reason
  return typeof r === 'string' ? r.trim() : ''
}

/** A hand-off the model wrote as text instead of calling the tool, or null. */
function handoffInText(text: string): { reason: string } | null {
  if (!text.includes(HANDOFF_TOOL)) return null
  const tagged = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/.exec(text)?.[1]
  const json = tagged ?? /\{[\s\S]*\}/.exec(text)?.[0]
  if (json) {
    try {
      const call = JSON.parse(json) as { name?: unknown; arguments?: unknown; parameters?: unknown; function?: { name?: unknown; arguments?: unknown } }
      const name = call.name ?? call.function?.name
      if (name === HANDOFF_TOOL) return { reason: reasonOf(call.arguments ?? call.parameters ?? call.function?.arguments) }
    } catch {
      // Not JSON: the plain-call form below may still match.
    }
  }
  const plain = new RegExp(`${HANDOFF_TOOL}\\s*\\(([^)]*)\\)`).exec(text)
  if (plain) return { reason: plain[1]!.replace(/^\s*reason\s*[=:]\s*/, '').replace(/^["']|["']$/g, '').trim() }
  return null
}

/** The answer without a reasoning block and surrounding space. */
function visibleText(content: string): string {
  return content
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .replace(/^[\s\S]*<\/think>/, '')
    .trim()
}

/** Interprets a chat completion (see the module doc). */
export function interpretAnswer(answer: ChatAnswer): Interpretation {
  const call = answer.toolCalls.find((c) => c.name === HANDOFF_TOOL)
  if (call) return { kind: 'handoff', reason: reasonOf(call.arguments) }
  if (answer.toolCalls.length > 0) return { kind: 'unusable', why: `the model called an unknown tool (${answer.toolCalls[0]!.name})` }
  if (answer.finishReason === 'content_filter') return { kind: 'unusable', why: 'the endpoint filtered the answer' }
  const text = visibleText(answer.content ?? '')
  const written = handoffInText(text)
  if (written) return { kind: 'handoff', reason: written.reason }
  if (!text) return { kind: 'unusable', why: 'the model answered nothing' }
  if (answer.finishReason === 'length') {
    // Cut off by max_tokens: send the whole sentences, never half of one.
    const end = Math.max(text.lastIndexOf('. '), text.lastIndexOf('! '), text.lastIndexOf('? '), /[.!?]$/.test(text) ? text.length - 1 : -1)
    if (end < 0) return { kind: 'unusable', why: 'the answer was cut off (raise max_reply_tokens)' }
    return { kind: 'reply', text: text.slice(0, end + 1) }
  }
  if (text.length > MAX_REPLY_CHARS) {
    const cut = text.slice(0, MAX_REPLY_CHARS)
    const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('\n'))
    return { kind: 'reply', text: (end > MAX_REPLY_CHARS / 2 ? cut.slice(0, end + 1) : cut).trim() }
  }
  return { kind: 'reply', text }
}
