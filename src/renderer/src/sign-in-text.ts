/** What the login screens say when the server refuses a sign-in or an invite (pure, for tests). */

/** The least a new password must have (the server refuses shorter ones with 400). */
export const MIN_PASSWORD = 10

/** Why a new password cannot be sent yet, or null when it can. */
export function newPasswordProblem(password: string, again: string): string | null {
  if (password.length < MIN_PASSWORD) return `Use at least ${MIN_PASSWORD} characters.`
  if (password !== again) return 'The two passwords differ.'
  return null
}

/** The words for a refused sign-in (`/auth/password`) or invite (`/auth/accept-invite`), from its HTTP status. */
export function signInRefusal(what: 'password' | 'invite', status: number, retryAfterS: number | null, serverMessage: string): string {
  if (status === 429) return `Too many failed attempts. Try again in ${retryAfterS ?? 60} s.`
  if (status === 401) return what === 'password' ? 'Wrong login or password.' : 'This invite link is unknown, already used or expired. Ask the owner for a new one.'
  return serverMessage
}
