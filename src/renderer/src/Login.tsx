/**
 * Web mode login (issue 27). People at the desk sign in with their login and password (the default;
 * `POST /auth/password` answers a session token); the owner can still use the API token (printed by
 * `npm run serve` when it generates it, shown in the API tab, or CHATAPP_API_TOKEN). An invite link
 * (`/#invite=<code>`) opens "Accept your invite": the person sets a password and is signed in with it.
 * The one-time link the server prints at each start (`/#login=…`) logs in without typing (App.tsx).
 * The token is kept in sessionStorage only, so closing the tab logs out.
 */
import { Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core'
import { useState } from 'react'
import { acceptInvite, SignInError, signInWithPassword, tokenWorks } from './transport/http-client'
import { ErrorAlert } from './components/ErrorAlert'
import { MIN_PASSWORD, newPasswordProblem, signInRefusal } from './sign-in-text'

export const TOKEN_KEY = 'chatapp.token'

/** A refusal in the screen's words (wrong password, locked, expired invite), other errors as they are. */
function refusal(what: 'password' | 'invite', err: unknown): unknown {
  return err instanceof SignInError ? new Error(signInRefusal(what, err.status, err.retryAfterS, err.message)) : err
}

/** Runs a form's submit with a busy flag and its error. */
function useSubmit() {
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const submit = (fn: () => Promise<void>) => async (e: React.FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      await fn()
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  return { error, setError, busy, submit }
}

/** The login screen: password (default) or API token, or the invite form when opened from an invite link. */
export function Login({ onToken, error: outerError, inviteCode }: { onToken: (token: string) => void; error?: unknown; inviteCode?: string | null }) {
  const [mode, setMode] = useState<'password' | 'token' | 'invite'>(inviteCode ? 'invite' : 'password')
  const [login, setLogin] = useState('')
  return (
    <Center mih="100vh" bg="gray.0" p="md">
      <Paper withBorder shadow="sm" p="xl" w={420} maw="100%">
        <Stack>
          <Title order={2}>Chatapp Desk</Title>
          {mode === 'invite' && inviteCode ? (
            <AcceptInvite code={inviteCode} onToken={onToken} onSignIn={(l) => (setLogin(l), setMode('password'))} />
          ) : mode === 'password' ? (
            <PasswordSignIn login={login} onLogin={setLogin} onToken={onToken} outerError={outerError} />
          ) : (
            <TokenSignIn onToken={onToken} outerError={outerError} />
          )}
          {mode !== 'invite' && (
            <Anchor component="button" type="button" size="sm" onClick={() => setMode(mode === 'password' ? 'token' : 'password')}>
              {mode === 'password' ? 'Use the API token (owner)' : 'Sign in with your login and password'}
            </Anchor>
          )}
        </Stack>
      </Paper>
    </Center>
  )
}

/** Login and password of a person at the desk. */
function PasswordSignIn({ login, onLogin, onToken, outerError }: { login: string; onLogin(l: string): void; onToken(t: string): void; outerError: unknown }) {
  const [password, setPassword] = useState('')
  const { error, busy, submit } = useSubmit()
  const onSubmit = submit(async () => {
    try {
      onToken((await signInWithPassword(login.trim(), password)).token)
    } catch (err) {
      throw refusal('password', err)
    }
  })
  return (
    <form onSubmit={onSubmit} aria-label="Sign in">
      <Stack>
        <Text c="dimmed" size="sm">
          Sign in with your login and password.
        </Text>
        <TextInput label="Login" value={login} onChange={(e) => onLogin(e.currentTarget.value)} required autoFocus={!login} autoComplete="username" autoCapitalize="none" />
        <PasswordInput label="Password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} required autoFocus={!!login} autoComplete="current-password" data-testid="login-password" />
        <ErrorAlert error={error ?? outerError} title="Sign-in failed" />
        <Button type="submit" loading={busy} disabled={!login.trim() || !password}>
          Sign in
        </Button>
      </Stack>
    </form>
  )
}

/** The account's API token (the owner). */
function TokenSignIn({ onToken, outerError }: { onToken(t: string): void; outerError: unknown }) {
  const [token, setToken] = useState('')
  const { error, busy, submit } = useSubmit()
  const onSubmit = submit(async () => {
    if (await tokenWorks(token.trim())) onToken(token.trim())
    else throw new Error('That token is not valid. Use the token the server printed (or CHATAPP_API_TOKEN).')
  })
  return (
    <form onSubmit={onSubmit} aria-label="Owner login">
      <Stack>
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
  )
}

/** Sets the invited person's password, then signs them in with it. */
function AcceptInvite({ code, onToken, onSignIn }: { code: string; onToken(t: string): void; onSignIn(login: string): void }) {
  const [password, setPassword] = useState('')
  const [again, setAgain] = useState('')
  const [accepted, setAccepted] = useState<{ login: string; name: string } | null>(null)
  const { error, busy, submit } = useSubmit()
  const problem = newPasswordProblem(password, again)
  const onSubmit = submit(async () => {
    let who = accepted
    if (!who) {
      try {
        who = await acceptInvite(code, password)
      } catch (err) {
        throw refusal('invite', err)
      }
      setAccepted(who)
    }
    try {
      onToken((await signInWithPassword(who.login, password)).token)
    } catch (err) {
      throw refusal('password', err)
    }
  })
  return (
    <form onSubmit={onSubmit} aria-label="Accept your invite">
      <Stack>
        <Title order={4}>Accept your invite</Title>
        <Text c="dimmed" size="sm">
          {accepted ? `Welcome, ${accepted.name}. Your login is ${accepted.login}.` : 'Choose the password you will sign in with, with the login the owner gave you.'}
        </Text>
        <PasswordInput label="New password" description={`At least ${MIN_PASSWORD} characters.`} value={password} onChange={(e) => setPassword(e.currentTarget.value)} required autoFocus autoComplete="new-password" disabled={!!accepted} data-testid="new-password" />
        <PasswordInput label="New password again" value={again} onChange={(e) => setAgain(e.currentTarget.value)} required autoComplete="new-password" error={again && problem === 'The two passwords differ.' ? problem : undefined} disabled={!!accepted} data-testid="new-password-again" />
        <ErrorAlert error={error} title={accepted ? 'Sign-in failed' : 'Could not accept the invite'} />
        <Button type="submit" loading={busy} disabled={!!problem}>
          {accepted ? 'Sign in' : 'Set password and sign in'}
        </Button>
        <Anchor component="button" type="button" size="sm" onClick={() => onSignIn(accepted?.login ?? '')}>
          I already have a password
        </Anchor>
      </Stack>
    </form>
  )
}
