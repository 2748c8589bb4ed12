/** API: the bearer token (copy, regenerate), the base URL, ready-made curl examples and the docs link. */
import { Alert, Button, Card, Code, CopyButton, Group, Modal, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { ErrorAlert } from '../components/ErrorAlert'
import { useAction, useContract } from '../hooks'
import { useDesk, useSelectedInstance, call } from '../store'
import { curlExamples } from '../curl-examples'
import { TOKEN_KEY } from '../Login'

export function ApiTab() {
  const info = useDesk((s) => s.info)
  const inst = useSelectedInstance()
  const token = useContract('apiToken.get', {})
  const regen = useAction()
  const [confirm, setConfirm] = useState(false)
  const [shown, setShown] = useState(false)
  const base = info?.baseUrl ?? ''
  const t = token.data?.token ?? ''
  return (
    <Stack maw={900}>
      <Title order={4}>Local HTTP API</Title>
      <ErrorAlert error={token.error ?? regen.error} />
      <Card withBorder>
        <Stack gap="xs">
          <Group>
            <Text w={90}>Base URL</Text>
            <Code data-testid="base-url">{base}</Code>
            <CopyButton value={base}>{({ copied, copy }) => <Button size="compact-xs" variant="default" onClick={copy}>{copied ? 'Copied' : 'Copy'}</Button>}</CopyButton>
            <Button component="a" href={`${base}/docs`} target="_blank" rel="noreferrer" size="compact-xs" variant="light">
              Open API docs (/docs)
            </Button>
          </Group>
          <Group>
            <Text w={90}>Token</Text>
            <Code data-testid="api-token">{shown ? t : t.replace(/./g, '•').slice(0, 24)}</Code>
            <Button size="compact-xs" variant="default" onClick={() => setShown((v) => !v)}>
              {shown ? 'Hide' : 'Show'}
            </Button>
            <CopyButton value={t}>{({ copied, copy }) => <Button size="compact-xs" variant="default" onClick={copy}>{copied ? 'Copied' : 'Copy'}</Button>}</CopyButton>
            <Button size="compact-xs" color="red" variant="light" onClick={() => setConfirm(true)} disabled={token.data?.fixed}>
              Regenerate
            </Button>
          </Group>
          {token.data?.fixed && <Text size="xs" c="dimmed">The token is set by CHATAPP_API_TOKEN; change it there.</Text>}
        </Stack>
      </Card>
      <Title order={5}>Examples{inst ? ` for ${inst.settings.bot_name}` : ''}</Title>
      {!inst && <Alert>Create or pick an instance to see examples with its credentials.</Alert>}
      {inst &&
        curlExamples(base, t, inst).map((ex) => (
          <Card withBorder key={ex.title}>
            <Group justify="space-between" mb={4}>
              <Text fw={500}>{ex.title}</Text>
              <CopyButton value={ex.command}>{({ copied, copy }) => <Button size="compact-xs" variant="default" onClick={copy}>{copied ? 'Copied' : 'Copy'}</Button>}</CopyButton>
            </Group>
            <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
              {ex.command}
            </Code>
          </Card>
        ))}
      <Modal opened={confirm} onClose={() => setConfirm(false)} title="Regenerate the API token?">
        <Text size="sm">Scripts using the current token stop working until you give them the new one.</Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={() => setConfirm(false)}>
            Cancel
          </Button>
          <Button
            color="red"
            onClick={() =>
              regen.run(async () => {
                setConfirm(false)
                const { token: fresh } = await call('apiToken.regenerate', {})
                // In web mode this session logs in with the token, so it must follow the change.
                if (info?.mode === 'web') {
                  sessionStorage.setItem(TOKEN_KEY, fresh)
                  location.reload()
                } else await token.reload()
              })
            }
          >
            Regenerate
          </Button>
        </Group>
      </Modal>
    </Stack>
  )
}
