/**
 * The largest part of a backup file one UI-contract call carries (`backups.read`, `backups.upload`),
 * in bytes of file before base64: IPC and /rpc move JSON, so no message holds a whole backup.
 */
export const BACKUP_CHUNK_BYTES = 4 * 1024 * 1024
