/**
 * Moving a desk between a data dir's SQLite database and PostgreSQL (`npm run db:copy`, docs/storage.md "Moving a desk: `npm run db:copy`"):
 * ./copy.ts copies and checks, ./checksum.ts sums rows alike on both databases, ./tables.ts lists what
 * is copied. No HTTP or Electron here: src/main/cli/db-copy-command.ts is the command.
 */
export { copyDesk, parseEndpoint, describeEndpoint, CopyRefusedError, CopyMismatchError, FILES_NOT_COPIED, LIVE_WORKER_MS, type CopyEndpoint, type CopyOptions, type CopyReport, type RefusalReason, type TableCheck } from './copy'
export { CONFIG_TABLES, COPIED_TABLES, type CopiedTable } from './tables'
export { documentChecksum, rowLine, TableDigest } from './checksum'
