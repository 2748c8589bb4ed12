/** Shows a failed call: the message, and the field problems of a validation error. */
import { Alert, List } from '@mantine/core'
import { ContractError } from '../../../shared/contract'
import { problemsShownOnForm, type FormFields } from './form-errors'

export type { FormFields } from './form-errors'

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The problem the server reported for `field`, for a form input's `error` prop. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ContractError)) return undefined
  const d = error.details?.find((p) => p.field === field || p.field.startsWith(`${field}.`))
  // The input already names the field; a nested field keeps its sub-path (e.g. rows.0.title).
  return d ? (d.field === field ? d.problem : `${d.field.slice(field.length + 1)} ${d.problem}`) : undefined
}

/**
 * A failed call: its message, and the field problems of a validation error. With `form`, problems
 * that its inputs show are not repeated (docs: "field errors shown once"); the alert only points at them.
 */
export function ErrorAlert({ error, title = 'Something went wrong', form }: { error: unknown; title?: string; form?: FormFields }) {
  if (!error) return null
  if (form && problemsShownOnForm(error, form)) {
    return (
      <Alert color="red" title={title} role="alert" variant="light">
        Check the field{(error as ContractError).details!.length > 1 ? 's' : ''} marked in red.
      </Alert>
    )
  }
  const details = error instanceof ContractError ? error.details : undefined
  return (
    <Alert color="red" title={title} role="alert" variant="light">
      {errorMessage(error)}
      {details && details.length > 1 && (
        <List size="sm" mt="xs">
          {details.map((d) => (
            <List.Item key={d.field}>
              {d.field} {d.problem}
            </List.Item>
          ))}
        </List>
      )}
    </Alert>
  )
}
