/** The end of every send form: the error of the last try and the send button. */
import { Button, Group } from '@mantine/core'
import { ErrorAlert, type FormFields } from '../../../components/ErrorAlert'

export function SendFooter({ label, busy, error, fields }: { label: string; busy: boolean; error: unknown; fields?: FormFields }) {
  return (
    <>
      <ErrorAlert error={error} title="Not sent" form={fields} />
      <Group justify="flex-end">
        <Button type="submit" loading={busy}>
          Send {label}
        </Button>
      </Group>
    </>
  )
}
