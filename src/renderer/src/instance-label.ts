/**
 * Pure: how an instance is named where room is short (the header's picker, the inbox's badges), so
 * that two can always be told apart: the number is never the part that is cut. On a phone the picker
 * shows the number alone (the name is in its list); elsewhere the name is shortened first.
 */
import type { Instance } from '../../shared/schemas/records'

type Named = { _id: string; settings: Pick<Instance['settings'], 'bot_name' | 'bot_number'> }

/** `text` cut to `max` characters with an ellipsis. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1)).trimEnd()}…`
}

/** The number as shown: +digits, or the end of the id while not linked. */
export function instanceNumber(i: Named): string {
  return i.settings.bot_number ? `+${i.settings.bot_number}` : `#${i._id.slice(-6)}`
}

/**
 * The picker's label: `phone` — the number only (the name when not linked, cut to fit); else the
 * name cut to `maxName` characters, then the number. A name that is the number already is not repeated.
 */
export function pickerLabel(i: Named, phone: boolean, maxName = 24): string {
  const name = i.settings.bot_name
  if (i.settings.bot_number && name === `+${i.settings.bot_number}`) return name
  if (phone) return i.settings.bot_number ? `+${i.settings.bot_number}` : cut(name, 16)
  return `${cut(name, maxName)} · ${instanceNumber(i)}`
}

/**
 * An instance's name in a list of several (`all`): the name alone when no other instance bears it,
 * else the name and the number.
 */
export function instanceTag(i: Named, all: readonly Named[]): string {
  const name = i.settings.bot_name
  const shared = all.some((o) => o._id !== i._id && o.settings.bot_name === name)
  return shared ? `${cut(name, 16)} · ${instanceNumber(i)}` : name
}
