/**
 * A secret shown once (an invite link, a new API key): the value, a Copy button and what to do with
 * it. The server never answers it again.
 */
import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core'

export function ShownOnce({ label, value, note, testId }: { label: string; value: string; note: string; testId: string }) {
  return (
    <Alert color="yellow" variant="light" title={label}>
      <Stack gap="xs">
        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} data-testid={testId}>
          {value}
        </Code>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Text size="xs">{note}</Text>
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button size="compact-sm" variant="filled" onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Stack>
    </Alert>
  )
}
