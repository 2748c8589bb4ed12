/** What the login screens say when the server refuses a sign-in or an invite (pure, for tests). */

import { MIN_PASSWORD_LENGTH, newPasswordProblem as passwordRule } from '../../shared/domain/password-rule'

/** The least a new password must have (the server refuses shorter ones with 400: the same rule). */
export const MIN_PASSWORD = MIN_PASSWORD_LENGTH

/** Why a new password cannot be sent yet, or null when it can (src/shared/domain/password-rule.ts, then the repeat). */
export function newPasswordProblem(password: string, again: string): string | null {
  const problem = passwordRule(password)
  if (problem) return `The password ${problem}.`
  if (password !== again) return 'The two passwords differ.'
  return null
}

/** The words for a refused sign-in (`/auth/password`) or invite (`/auth/accept-invite`), from its HTTP status. */
export function signInRefusal(what: 'password' | 'invite', status: number, retryAfterS: number | null, serverMessage: string): string {
  if (status === 429) return `Too many failed attempts. Try again in ${retryAfterS ?? 60} s.`
  if (status === 401) return what === 'password' ? 'Wrong login or password.' : 'This invite link is unknown, already used or expired. Ask the owner for a new one.'
  return serverMessage
}
