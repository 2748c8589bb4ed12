/**
 * Files fetched by URL for a send (`fileurl`, media with buttons): downloaded to the data dir's tmp
 * folder within the size and time limits, handed to the caller, removed afterwards whatever happens.
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { newObjectId } from '../../ids'
import { downloadToFile } from '../../media/download'

export interface DownloadedFile {
  path: string
  size: number
  contentType?: string
  fileName: string
}

export interface RemoteFilesOptions {
  tmpDir: string
  /** Largest file (bytes) and longest download (ms). */
  maxBytes: number
  timeoutMs: number
}

export class RemoteFiles {
  constructor(private readonly opts: RemoteFilesOptions) {}

  /** Downloads `url` (its request field is `field`, for errors) and runs `fn` with the file. */
  async with<T>(url: string, field: string, fn: (file: DownloadedFile) => Promise<T>): Promise<T> {
    const dest = join(this.opts.tmpDir, `dl-${newObjectId()}`)
    try {
      const file = await downloadToFile(url, dest, { maxBytes: this.opts.maxBytes, timeoutMs: this.opts.timeoutMs }, field)
      return await fn(file)
    } finally {
      await rm(dest, { force: true })
    }
  }
}
