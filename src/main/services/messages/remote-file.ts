/**
 * Files fetched by URL for a send (`fileurl`, media with buttons): downloaded to the data dir's tmp
 * folder within the size and time limits and the address policy (no private or local address unless
 * allowed), handed to the caller, removed afterwards whatever happens.
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { newObjectId } from '../../ids'
import type { Agent } from 'undici'
import { addressPolicy, policedAgent } from '../../media/address-policy'
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
  /** Private or local addresses, ranges or host names that may be fetched (`CHATAPP_FETCH_ALLOW`). */
  allow?: readonly string[]
}

export class RemoteFiles {
  private readonly dispatcher: Agent

  constructor(private readonly opts: RemoteFilesOptions) {
    this.dispatcher = policedAgent(addressPolicy(opts.allow))
  }

  /** Closes the connections kept alive. */
  close(): Promise<void> {
    return this.dispatcher.close()
  }

  /** Downloads `url` (its request field is `field`, for errors) and runs `fn` with the file. */
  async with<T>(url: string, field: string, fn: (file: DownloadedFile) => Promise<T>): Promise<T> {
    const dest = join(this.opts.tmpDir, `dl-${newObjectId()}`)
    try {
      const file = await downloadToFile(url, dest, { maxBytes: this.opts.maxBytes, timeoutMs: this.opts.timeoutMs, dispatcher: this.dispatcher }, field)
      return await fn(file)
    } finally {
      await rm(dest, { force: true })
    }
  }
}
