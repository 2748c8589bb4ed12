/**
 * Every operation of the app, defined once (docs/architecture.md "Operations"): the HTTP API
 * (docs/api-seed.md, docs/design.md), the UI contract (IPC and `/rpc`) and the OpenAPI document are
 * generated from this table; each operation's service call is its runner in
 * src/main/operations/runners.ts. The keys are the operation names, and the UI contract's method names.
 *
 * The table is kept one file per domain (beside this one); this index only assembles them. To add an
 * operation: a definition in its domain's file, a runner there, the service method, and the UI that calls it.
 */
import { ADMIN_OPERATIONS } from './admin'
import { ASSISTANT_OPERATIONS } from './assistant'
import { BOT_OPERATIONS } from './bot'
import { CLUSTER_OPERATIONS } from './cluster'
import { CONTACT_OPERATIONS } from './contacts'
import { DATA_OPERATIONS } from './data'
import { UPDATE_OPERATIONS } from '../updates'
import { INBOX_OPERATIONS } from './inbox'
import { INSTANCE_OPERATIONS } from './instances'
import { MESSAGE_OPERATIONS } from './messages'
import { OUTREACH_OPERATIONS } from './outreach'
import { PEOPLE_OPERATIONS } from './people'

/**
 * The domain files' operations by domain. The order is the table's (routes, contract methods and the
 * OpenAPI document list the operations in it).
 */
export const OPERATION_DOMAINS = {
  admin: ADMIN_OPERATIONS,
  instances: INSTANCE_OPERATIONS,
  bot: BOT_OPERATIONS,
  /** The assistant and the shop's knowledge (docs/assistant.md). */
  assistant: ASSISTANT_OPERATIONS,
  messages: MESSAGE_OPERATIONS,
  contacts: CONTACT_OPERATIONS,
  inbox: INBOX_OPERATIONS,
  outreach: OUTREACH_OPERATIONS,
  data: DATA_OPERATIONS,
  /** Staff, sign-in, API keys and the audit log (docs/design.md §21). */
  people: PEOPLE_OPERATIONS,
  /** The workers sharing one database (docs/design.md §22). */
  cluster: CLUSTER_OPERATIONS,
  /** About and updates of the desktop app (UI only; ../updates.ts). */
  updates: UPDATE_OPERATIONS
} as const

export const OPERATIONS = {
  ...ADMIN_OPERATIONS,
  ...INSTANCE_OPERATIONS,
  ...BOT_OPERATIONS,
  ...ASSISTANT_OPERATIONS,
  ...MESSAGE_OPERATIONS,
  ...CONTACT_OPERATIONS,
  ...INBOX_OPERATIONS,
  ...OUTREACH_OPERATIONS,
  ...DATA_OPERATIONS,
  ...PEOPLE_OPERATIONS,
  ...CLUSTER_OPERATIONS,
  ...UPDATE_OPERATIONS
} as const

export type Operations = typeof OPERATIONS
export type OperationName = keyof Operations

export { MEDIA_KIND } from './messages'
export type { PagedT } from './common'
