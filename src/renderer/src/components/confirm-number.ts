/** The typed confirmation of an erasure names the customer's number: the same digits, however it is written. */
export function confirmsNumber(typed: string, number: string): boolean {
  const digits = typed.replace(/\D/g, '')
  return digits !== '' && digits === number.replace(/\D/g, '')
}
