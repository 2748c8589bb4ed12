/**
 * The send forms' shared behaviour (@mantine/form): submit sends, a field problem from the server
 * lands on its input (`prefix` is the part of the server's field path the form leaves out, e.g.
 * `vcard.`), and a successful send clears the form and reloads the conversation.
 */
import type { UseFormReturnType } from '@mantine/form'
import { ContractError } from '../../../../../shared/contract'
import { useAction } from '../../../hooks'

export interface SendFormProps {
  instanceId: string
  chatId: string
  onSent(): Promise<void>
}

export function useSendForm<V extends Record<string, unknown>>(form: UseFormReturnType<V>, prefix: string, send: (values: V) => Promise<unknown>, onSent: () => Promise<void>) {
  const action = useAction()
  const onSubmit = form.onSubmit((values) => {
    void action.run(async () => {
      try {
        await send(values)
      } catch (err) {
        if (err instanceof ContractError && err.details) {
          form.setErrors(Object.fromEntries(err.details.map((d) => [d.field.startsWith(prefix) ? d.field.slice(prefix.length) : d.field, d.problem])))
        }
        throw err
      }
      form.reset()
      await onSent()
    })
  })
  return { onSubmit, busy: action.busy, error: action.error }
}
