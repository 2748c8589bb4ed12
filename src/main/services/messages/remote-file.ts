/**
 * Files fetched by URL for a send (`fileurl`, media with buttons): downloaded to the data dir's tmp
 * folder within the size and time limits and the address policy (no private or local address unless
 * allowed), handed to the caller, removed afterwards whatever happens.
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { newObjectId } from '../../ids'
import type { Agent } from 'undici'
import { addressPolicy } from '../../media/address-policy'

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
  /** Made at the first download: undici and the policy load then, not at start (docs/benchmarks.md "Start time and idle memory"). */
  private dispatcher: Promise<Agent> | null = null

  constructor(private readonly opts: RemoteFilesOptions) {}

  /** Closes the connections kept alive. */
  async close(): Promise<void> {
    await (await this.dispatcher)?.close()
  }

  /** Downloads `url` (its request field is `field`, for errors) and runs `fn` with the file. */
  async with<T>(url: string, field: string, fn: (file: DownloadedFile) => Promise<T>): Promise<T> {
    const dest = join(this.opts.tmpDir, `dl-${newObjectId()}`)
    try {
      this.dispatcher ??= import('../../media/policed-agent').then(({ policedAgent }) => policedAgent(addressPolicy(this.opts.allow)))
      const [{ downloadToFile }, dispatcher] = await Promise.all([import('../../media/download'), this.dispatcher])
      const file = await downloadToFile(url, dest, { maxBytes: this.opts.maxBytes, timeoutMs: this.opts.timeoutMs, dispatcher }, field)
      return await fn(file)
    } finally {
      await rm(dest, { force: true })
    }
  }
}
