/**
 * What an instance is called when nobody named it (docs/design.md §5), so that two of them can be told
 * apart in the inbox and the picker: the desk's first is "Chatapp Bot", later ones "Instance 2",
 * "Instance 3"…; once linked, an instance still under such a name takes its WhatsApp number
 * ("+15550102000") — the first "Chatapp Bot" too when another instance bears the same name. A name
 * the owner chose is never changed. Pure.
 */

/** The name of a desk's first instance (the seed's default bot_name). */
export const DEFAULT_INSTANCE_NAME = 'Chatapp Bot'

const NUMBERED = /^Instance \d+$/

/** The name of a new instance, given the names of those the desk has. */
export function newInstanceName(existing: readonly string[]): string {
  if (existing.length === 0) return DEFAULT_INSTANCE_NAME
  const taken = new Set(existing)
  let n = existing.length + 1
  while (taken.has(`Instance ${n}`)) n++
  return `Instance ${n}`
}

/**
 * The name an instance takes when it is linked to `number` (digits), or null to keep `current`: only
 * a name given automatically changes, and "Chatapp Bot" only when `others` (the other instances'
 * names) hold it too.
 */
export function linkedName(current: string, number: string, others: readonly string[]): string | null {
  if (!number) return null
  if (NUMBERED.test(current) || (current === DEFAULT_INSTANCE_NAME && others.includes(DEFAULT_INSTANCE_NAME))) return `+${number}`
  return null
}
