/** Phone numbers of contacts as people type them. */
import { invalid } from '../../errors'

/** Digits of a phone number as typed (`+39 333 123-4567`); throws 400 naming `number` otherwise. */
export function contactNumber(value: string): string {
  const digits = value.replace(/[\s\-().+]/g, '')
  if (!/^\d{6,16}$/.test(digits)) throw invalid('number', 'must be a phone number with its country code, e.g. +39 333 1234567')
  return digits
}
