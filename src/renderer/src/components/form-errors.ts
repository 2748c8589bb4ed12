/** Puts the server's field problems (docs/design.md §4 details) on a @mantine/form form's inputs. */
import type { UseFormReturnType } from '@mantine/form'
import { ContractError } from '../../../shared/contract'

/** `prefix` is the part of the server's field path the form leaves out (e.g. `vcard.`, `smtp.`). */
export function showFieldErrors<V>(form: UseFormReturnType<V>, err: unknown, prefix = ''): void {
  if (!(err instanceof ContractError) || !err.details) return
  form.setErrors(Object.fromEntries(err.details.map((d) => [d.field.startsWith(prefix) ? d.field.slice(prefix.length) : d.field, d.problem])))
}

/** The fields a form shows its own problems on: its value keys, and the server's path prefix it leaves out. */
export interface FormFields {
  keys: readonly string[]
  prefix?: string
}

/** True when every field problem of `error` lands on an input of `form` (so the alert need not repeat them). */
export function problemsShownOnForm(error: unknown, form: FormFields): boolean {
  if (!(error instanceof ContractError) || !error.details?.length) return false
  const prefix = form.prefix ?? ''
  return error.details.every((d) => d.field.startsWith(prefix) && form.keys.includes(d.field.slice(prefix.length).split('.')[0]!))
}
