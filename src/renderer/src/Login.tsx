/**
 * Web mode login: the API token (printed by `npm run serve` when it generates it, shown in the API tab,
 * or CHATAPP_API_TOKEN). The one-time link the server prints at each start (`/#login=…`) logs in
 * without typing it (App.tsx trades the code for the token). The token is kept in sessionStorage
 * only, so closing the tab logs out.
 */
import { Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { tokenWorks } from './transport/http-client'
import { ErrorAlert } from './components/ErrorAlert'

export const TOKEN_KEY = 'chatapp.token'

export function Login({ onToken, error: outerError }: { onToken: (token: string) => void; error?: unknown }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const submit = async (e: React.FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      if (await tokenWorks(token.trim())) onToken(token.trim())
      else setError(new Error('That token is not valid. Use the token the server printed (or CHATAPP_API_TOKEN).'))
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Center mih="100vh" bg="gray.0">
      <Paper withBorder shadow="sm" p="xl" w={420}>
        <form onSubmit={submit}>
          <Stack>
            <Title order={2}>Chatapp Desk</Title>
            <Text c="dimmed" size="sm">
              Log in with the API token of this server.
            </Text>
            <PasswordInput label="API token" value={token} onChange={(e) => setToken(e.currentTarget.value)} required autoFocus data-testid="login-token" />
            <ErrorAlert error={error ?? outerError} title="Login failed" />
            <Button type="submit" loading={busy} disabled={!token.trim()}>
              Log in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  )
}
