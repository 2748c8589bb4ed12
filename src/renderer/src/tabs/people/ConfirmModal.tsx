/** Asks before something that cannot be undone (remove a person, revoke a key); shows a refusal in place. */
import { Button, Group, Modal, Stack, Text } from '@mantine/core'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'

export function ConfirmModal({ title, text, action, onConfirm, onClose }: { title: string; text: string; action: string; onConfirm(): Promise<unknown>; onClose(): void }) {
  const act = useAction()
  return (
    <Modal opened onClose={onClose} title={title} centered>
      <Stack>
        <Text size="sm">{text}</Text>
        <ErrorAlert error={act.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={act.busy} onClick={() => void act.run(async () => (await onConfirm(), onClose()))}>
            {action}
          </Button>
        </Group>
      </Stack>
    </Modal>
  )
}
