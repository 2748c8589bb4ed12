/**
 * The send forms' shared behaviour (@mantine/form): submit sends, a field problem from the server
 * lands on its input (`prefix` is the part of the server's field path the form leaves out, e.g.
 * `vcard.`), and a successful send clears the form and reloads the conversation.
 */
import type { UseFormReturnType } from '@mantine/form'
import { showFieldErrors } from '../../../components/form-errors'
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
        showFieldErrors(form, err, prefix)
        throw err
      }
      form.reset()
      await onSent()
    })
  })
  return { onSubmit, busy: action.busy, error: action.error, fields: { keys: Object.keys(form.getInitialValues()), prefix } }
}
