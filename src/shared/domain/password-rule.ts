/**
 * The one rule for a new password, wherever one is set (accepting an invite, which is also how a
 * password is reset) and wherever it is checked first (the web UI's form): at least
 * {@link MIN_PASSWORD_LENGTH} characters, counted as code points (an emoji is one), and not blank
 * or made of spaces only (Unicode White_Space: tabs, line breaks, no-break and ideographic spaces).
 * NIST SP 800-63B §5.1.1.2 asks at least 8 characters and no other composition rule; ten spaces
 * satisfy a length rule while being the first guess of anyone, hence the blank check. Pure.
 */

/** Passwords shorter than this (code points) are refused. */
export const MIN_PASSWORD_LENGTH = 10

/**
 * Why `password` cannot be a new password (a sentence fragment for a 400's `problem`, e.g.
 * "must have at least 10 characters"), or null when it can.
 */
export function newPasswordProblem(password: string): string | null {
  if (password.trim() === '') return 'must not be blank or only spaces'
  if ([...password].length < MIN_PASSWORD_LENGTH) return `must have at least ${MIN_PASSWORD_LENGTH} characters`
  return null
}
