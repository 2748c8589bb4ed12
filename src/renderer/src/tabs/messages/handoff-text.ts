/** The hand-off bar's words (pure). */
import { isMine } from '../../components/sender-label'
import type { MeViewT } from '../../../../shared/operations/table/people'
import type { ChatPause } from '../../../../shared/schemas/records'

const WHY: Record<ChatPause['reason'], string> = {
  human_reply: 'you replied',
  manual: 'paused by hand',
  keyword: 'the customer asked for a person',
  assistant: 'the assistant handed the chat to a person'
}

/** Why the bot is paused, naming who took the chat over when it was someone else (`taken_by`, docs/design.md §21 "Hand-off"). */
export function pauseReason(p: Pick<ChatPause, 'reason' | 'taken_by'>, me: Pick<MeViewT, 'kind' | 'id'> | null): string {
  if (p.taken_by && p.reason !== 'keyword' && p.reason !== 'assistant' && !isMine(p.taken_by, me)) return p.reason === 'human_reply' ? `${p.taken_by.name} replied` : `paused by ${p.taken_by.name}`
  return WHY[p.reason]
}

