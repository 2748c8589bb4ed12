/**
 * The bot's decision record (docs/design.md §13) in plain words, as the UI shows it under an inbound
 * message ("Why no reply?"). One wording for every face.
 */
import type { BotDecisionRecord } from '../schemas/records'
import type { AssistantOutcome } from '../schemas/assistant'

const REASONS: Record<string, string> = {
  outside_hours: 'outside business hours',
  paused: 'the bot is paused for this chat (a person is handling it)',
  reply_msgs_off: 'automatic replies are off (reply_msgs)',
  group_off: 'replies in groups are off (reply_group_msgs)',
  backlog: 'it arrived while the instance was offline (reply_unread_msgs is off)',
  broadcast: 'status updates and broadcasts are never answered',
  no_match: 'no intent matched and the default message is off',
  default_sent_recently: 'no intent matched, and this contact already got the default message in the last window',
  handoff_requested: 'the customer asked for a person; the bot is paused for this chat until you resume it',
  burst: 'part of a burst of messages; the bot answered the first one',
  survey_step_deleted: 'the survey step it answered was deleted',
  assistant_cap: 'the assistant reached its hourly cap of replies in this chat (two bots writing to each other stop here)',
  instance_deleted: 'the instance was deleted'
}

/** A sentence for a decision record, e.g. `Answered by intent "Hours"` or `No reply: outside business hours`. */
export function explainBotDecision(d: BotDecisionRecord): string {
  switch (d.action) {
    case 'intent':
      return `Answered by intent "${d.ref ?? '?'}"`
    case 'survey':
      return `Survey: ${d.ref ?? ''}`.trim()
    case 'default':
      return 'Answered with the default message'
    case 'away':
      return 'Answered with the away message'
    case 'option':
      return `Option pressed: ${d.ref ?? ''}`.trim()
    case 'opt_out':
      return 'Opted out of broadcasts (told once)'
    case 'opt_in':
      return 'Opted in to broadcasts again'
    case 'assistant':
      return d.assistant ? explainAssistant(d.assistant) : `Sent to the assistant${d.ref ? ` (${d.ref})` : ''}…`
    case 'none':
      if (d.reason === 'own_message') return 'Sent from the phone'
      return `No reply: ${REASONS[d.reason ?? ''] ?? d.reason ?? 'no reason recorded'}`
  }
}

const FALLBACK_TEXT: Record<NonNullable<AssistantOutcome['fallback']>, string> = {
  default: 'sent the default message',
  away: 'sent the away message',
  handoff: 'handed the chat to a person',
  none: 'sent nothing more (this chat got the fallback in the last 10 minutes)'
}

/** What the assistant did, e.g. `Answered by the assistant (gpt-4o-mini · 812 tokens · 1.4 s) from: Hours, Returns`. */
export function explainAssistant(a: AssistantOutcome): string {
  const tokens = a.prompt_tokens + a.completion_tokens
  const cost = [a.model, tokens > 0 ? `${tokens} tokens` : '', a.ms > 0 ? `${(a.ms / 1000).toFixed(1)} s` : ''].filter(Boolean).join(' · ')
  const from = a.sources.length > 0 ? ` from: ${a.sources.map((s) => s.title).join(', ')}` : ''
  switch (a.outcome) {
    case 'pending':
      return `Sent to the assistant (${a.model})…`
    case 'answered':
      return `Answered by the assistant (${cost})${from || ' (no knowledge matched)'}`
    case 'handoff':
      return `The assistant handed the chat to a person${a.handoff_reason ? `: ${a.handoff_reason}` : ''} (${cost})`
    case 'capped':
      return `No reply: ${REASONS.assistant_cap}`
    case 'fallback':
      return `The assistant could not answer (${a.error ?? 'no reason recorded'}): ${FALLBACK_TEXT[a.fallback ?? 'none']}`
  }
}
