/**
 * Every migration, in order: the database's version is the number of migrations applied. Listed here
 * (not read from a folder) so the bundled app carries them. A migration never changes once released;
 * the next change is a new numbered file. Each is tested from every earlier version
 * (test/unit/store/migrations.test.ts).
 */
import type { Migration } from 'kysely/migration'
import * as m0001 from './0001-initial'
import * as m0002 from './0002-people'
import * as m0003 from './0003-leases'
import * as m0004 from './0004-config-document'
import * as m0005 from './0005-idempotency'
import * as m0006 from './0006-idempotency-taker'
import * as m0007 from './0007-message-changes'
import * as m0008 from './0008-erasing'
import * as m0009 from './0009-assistant'
import * as m0010 from './0010-config-instances'
import * as m0011 from './0011-times-as-ms'
import * as m0012 from './0012-time-columns-not-null'

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': m0001,
  '0002-people': m0002,
  '0003-leases': m0003,
  '0004-config-document': m0004,
  '0005-idempotency': m0005,
  '0006-idempotency-taker': m0006,
  '0007-message-changes': m0007,
  '0008-erasing': m0008,
  '0009-assistant': m0009,
  '0010-config-instances': m0010,
  '0011-times-as-ms': m0011,
  '0012-time-columns-not-null': m0012
}
