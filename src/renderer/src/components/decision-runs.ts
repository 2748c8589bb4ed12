/**
 * Pure: where the bot's "No reply: …" line goes in a conversation. A busy chat where the bot stays
 * silent (replies off, outside hours, paused) would carry the same orange line under every customer
 * message; it is said once per run instead — under the last message of a run of customer messages
 * with the same silent decision, with how many messages it covers. Other decisions (answered by an
 * intent, a survey step…) are said under their own message as before.
 */
import type { LoggedMessage } from '../../../shared/schemas/records'

/** Whether `m` is a customer message the bot chose not to answer (not one the owner sent from the phone). */
function silent(m: LoggedMessage): boolean {
  return !m.fromMe && m.bot?.action === 'none' && m.bot.reason !== 'own_message'
}

/**
 * For each message id of `messages` (oldest first) whose decision line is part of a run: 0 to hide
 * it, or the run's length on the run's last message. Messages not in the map show their line as usual.
 * A run ends at any message that is not a silent customer message with the same reason (a reply, a
 * message the bot answered, another reason).
 */
export function decisionRuns(messages: readonly LoggedMessage[]): Map<string, number> {
  const out = new Map<string, number>()
  let run: LoggedMessage[] = []
  const close = () => {
    if (run.length > 1) run.forEach((m, i) => out.set(m.id, i === run.length - 1 ? run.length : 0))
    run = []
  }
  for (const m of messages) {
    if (!silent(m)) {
      close()
      continue
    }
    if (run.length > 0 && run[0]!.bot!.reason !== m.bot!.reason) close()
    run.push(m)
  }
  close()
  return out
}
