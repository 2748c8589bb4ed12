/**
 * The repository methods that only read: on SQLite they run in a reader thread (WAL lets readers
 * read while the writer writes); every other method goes to the writer thread. Written out, not
 * learned from a first refusal: a write sent to a reader first would reach the writer a round trip
 * late, after writes issued behind it (a bot's reply logged before the message it answers). A method
 * missing here only costs a reader's parallelism; one listed here that writes is refused by its
 * reader and still runs on the writer (./threaded-repositories.ts), out of order, so keep it exact.
 */
import type { DataRepositories } from '../../repos/data-repositories'

type MethodOf<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T] & string

/** Per repository, its read-only methods (typed: a renamed method fails the build). */
export type ReadCalls = { [R in keyof DataRepositories]?: ReadonlyArray<MethodOf<DataRepositories[R]>> }

const RECORD_TABLE_READS = ['find', 'ofInstance', 'owned'] as const

export const READ_CALLS: ReadCalls = {
  messages: ['find', 'findIn', 'list', 'search', 'oldestDelivered', 'hasInbound', 'since', 'oldestTime', 'logPage'],
  conversations: ['list', 'get', 'isResolved', 'resolvedAt', 'assignee', 'events', 'leastRecentlyAssigned', 'countUnread'],
  chatPauses: ['find', 'inForce'],
  intents: RECORD_TABLE_READS,
  surveySteps: [...RECORD_TABLE_READS, 'stepsOf'],
  surveyRuns: ['find', 'ofSurvey', 'inProgress', 'idleSince', 'countInProgressSince', 'ofChatOrContact'],
  attachments: RECORD_TABLE_READS,
  quickReplies: ['find', 'all', 'byShortcut'],
  labels: ['find', 'all', 'byName', 'count'],
  contacts: ['find', 'owned', 'byNumber', 'byNumbers', 'inGroup', 'page'],
  contactGroups: [...RECORD_TABLE_READS, 'ofInstances'],
  broadcasts: ['find', 'owned', 'ofInstance', 'withStatus', 'countWithStatus', 'interrupted'],
  outreachSends: ['since'],
  schedules: [...RECORD_TABLE_READS, 'due', 'soonest'],
  botActivity: ['ofInstance'],
  customerData: ['exportRecords', 'exportCustomer', 'erasedAt', 'mediaBefore', 'chatOfUsername', 'customerKey'],
  channelAuth: ['creds', 'has', 'keys', 'keyIds', 'countKeys'],
  waMessages: ['find', 'recent', 'count'],
  webhookDeliveries: ['find', 'list', 'pending', 'instanceIds'],
  leases: ['orphans', 'leastLoaded', 'cluster', 'lease', 'databaseNow', 'holder'],
  staff: ['list', 'find', 'credentials'],
  sessions: ['find', 'findWithMember', 'signedIn'],
  apiKeys: ['list', 'findWithHash'],
  audit: ['list'],
  assistant: ['settings', 'key', 'callBudget', 'usage', 'tokensOn', 'repliesSince', 'latestReplies'],
  knowledge: ['owned', 'list', 'candidates', 'revision', 'termHits', 'count', 'chunks', 'embeddingState', 'embeddings', 'withoutEmbedding']
}

/** `repo.method` keys of {@link READ_CALLS}. */
export function readCallKeys(calls: ReadCalls = READ_CALLS): Set<string> {
  return new Set(Object.entries(calls).flatMap(([repo, methods]) => (methods ?? []).map((m) => `${repo}.${m}`)))
}
