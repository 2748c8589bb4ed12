/** Reading the errors Baileys throws and closes with (Boom errors, query errors). Pure. */

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** `output.statusCode` of a Boom error (Baileys' close reasons), if any. */
export function statusCodeOf(err: unknown): number | undefined {
  const code = (err as { output?: { statusCode?: unknown } } | undefined)?.output?.statusCode
  return typeof code === 'number' ? code : undefined
}

/** Baileys query errors carry the server's code in `data` (lib/WABinary/generic-utils.js assertNodeErrorFree). */
export function isForbidden(err: unknown): boolean {
  const data = (err as { data?: unknown } | undefined)?.data
  return data === 401 || data === 403 || /not-authorized|forbidden/i.test(errorMessage(err))
}
