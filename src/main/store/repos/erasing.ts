/**
 * While an erasure runs in slices (./customer-data-repo.ts), its customer's messages are already
 * hidden: every read of the message log leaves out a message whose chat or sender is a JID of a
 * running erasure of its instance and that the erasure covers (inserted up to the erasure's start).
 * The table `erasing` is empty but during an erasure, so the check is one probe of an empty index
 * per row read (docs/storage.md "Erasing a customer").
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely'

/**
 * A condition on the messages rows of `alias` (the table's name, or its alias in the query): true for
 * the rows no running erasure covers.
 */
export function notErasing(alias = 'messages'): RawBuilder<SqlBool> {
  const col = (c: string) => sql.ref(`${alias}.${c}`)
  return sql<SqlBool>`NOT EXISTS (SELECT 1 FROM erasing e WHERE e.instance_id = ${col('instance_id')} AND e.jid IN (${col('chat_id')}, ${col('sender_pn')}, ${col('sender_id')}) AND ${col('seq')} <= e.up_to_seq)`
}
