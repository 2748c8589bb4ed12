/** Puts the server's field problems (docs/design.md §4 details) on a @mantine/form form's inputs. */
import type { UseFormReturnType } from '@mantine/form'
import { ContractError } from '../../../shared/contract'

/** `prefix` is the part of the server's field path the form leaves out (e.g. `vcard.`, `smtp.`). */
export function showFieldErrors<V>(form: UseFormReturnType<V>, err: unknown, prefix = ''): void {
  if (!(err instanceof ContractError) || !err.details) return
  form.setErrors(Object.fromEntries(err.details.map((d) => [d.field.startsWith(prefix) ? d.field.slice(prefix.length) : d.field, d.problem])))
}
