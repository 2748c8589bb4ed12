/**
 * How the desk names a customer's key (a contact's `number`, an export's or erasure's): `+digits`
 * for a number; for a LID (`…@lid`, a customer who hides the number behind a WhatsApp username,
 * docs/baileys.md "Usernames") "@username" when known, else the LID's digits (they mean nothing to
 * people, but it is all WhatsApp gave).
 */
export function customerLabel(key: string, username?: string | null): string {
  if (!key.endsWith('@lid')) return `+${key}`
  return username ? `@${username}` : key.slice(0, -'@lid'.length)
}

/**
 * The typed confirmation of an erasure names the customer: the same digits of a number, however it
 * is written; for a LID, their "@username" (any case, "@" optional) when known, else the LID's digits.
 */
export function confirmsNumber(typed: string, number: string, username?: string | null): boolean {
  if (number.endsWith('@lid') && username) return typed.trim().replace(/^@/, '').toLowerCase() === username.toLowerCase()
  const digits = typed.replace(/\D/g, '')
  return digits !== '' && digits === number.replace(/\D/g, '')
}
