/**
 * WhatsApp usernames as people type them (docs/baileys.md "Usernames"): `@name` or `name`, letters,
 * digits, "." and "_", 3–35 long, at least one letter. Pure; the lookups are the channel's.
 */

/** A username without the "@". */
export const USERNAME = /^[a-z0-9._]{3,35}$/i

/** The username of `@name` or `name` (lower case), or undefined when it is not one. */
export function usernameOf(input: string): string | undefined {
  const name = input.trim().replace(/^@/, '')
  return USERNAME.test(name) && /[a-z]/i.test(name) ? name.toLowerCase() : undefined
}
