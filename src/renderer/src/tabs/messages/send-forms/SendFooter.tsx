/** The end of every send form: the error of the last try and the send button. */
import { Button, Group } from '@mantine/core'
import { ErrorAlert } from '../../../components/ErrorAlert'

export function SendFooter({ label, busy, error }: { label: string; busy: boolean; error: unknown }) {
  return (
    <>
      <ErrorAlert error={error} title="Not sent" />
      <Group justify="flex-end">
        <Button type="submit" loading={busy}>
          Send {label}
        </Button>
      </Group>
    </>
  )
}
