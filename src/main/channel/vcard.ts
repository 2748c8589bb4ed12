/**
 * vCard 3.0 text for contact messages (docs/api-seed.md §2.5 send_contact, 4.5 /message/contact), in the form
 * WhatsApp clients read: `TEL;type=CELL;waid=<digits>:+<digits>`. Values are escaped per RFC 6350 §3.4.
 */

export interface VCardInput {
  fullName: string
  displayName?: string
  organization?: string
  /** Phone number in any common notation; digits are kept. */
  phoneNumber: string
}

function esc(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/([,;])/g, '\\$1')
}

/** Builds the vCard text. */
export function buildVCard(input: VCardInput): string {
  const digits = input.phoneNumber.replace(/\D/g, '')
  const lines = ['BEGIN:VCARD', 'VERSION:3.0', `FN:${esc(input.fullName)}`]
  if (input.organization) lines.push(`ORG:${esc(input.organization)};`)
  lines.push(`TEL;type=CELL;type=VOICE;waid=${digits}:+${digits}`, 'END:VCARD')
  return lines.join('\n')
}
