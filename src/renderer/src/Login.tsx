/**
 * Web mode login (docs/ui.md "People at the desk"). People at the desk sign in with their login and password (`POST
 * /auth/password` answers a session token); the owner uses the one-time login link the server prints
 * (`/#login=…`, traded in App.tsx; `npm run login-link` prints a new one at any time) or the API token
 * (printed by `npm run serve` when it generates it, shown in the API tab, or CHATAPP_API_TOKEN).
 * A desk where nobody has a password yet (`GET /auth/methods`) opens on the owner's way in, saying
 * where the link and the token are; one with staff opens on the password form. An invite link
 * (`/#invite=<code>`) opens "Accept your invite": the person sets a password and is signed in with it.
 * The token is kept in sessionStorage only, so closing the tab logs out.
 */
import { Anchor, Button, Center, Code, Loader, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core'
import { useEffect, useState } from 'react'
import { acceptInvite, passwordsInUse, SignInError, signInWithPassword, tokenWorks } from './transport/http-client'
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

/**
 * The login screen: the invite form when opened from an invite link; else the owner's way in on a
 * desk where nobody has a password yet, and the password form on one with staff (each offers the other).
 */
export function Login({ onToken, error: outerError, inviteCode }: { onToken: (token: string) => void; error?: unknown; inviteCode?: string | null }) {
  const [mode, setMode] = useState<'password' | 'token' | 'invite' | null>(inviteCode ? 'invite' : null)
  const [login, setLogin] = useState('')
  useEffect(() => {
    if (mode !== null) return
    let live = true
    void passwordsInUse().then((passwords) => live && setMode((m) => m ?? (passwords ? 'password' : 'token')))
    return () => {
      live = false
    }
  }, [mode])
  return (
    <Center mih="100vh" bg="gray.0" p="md">
      <Paper withBorder shadow="sm" p={{ base: 'lg', sm: 'xl' }} w={440} maw="100%">
        <Stack>
          <Title order={2}>Chatapp Desk</Title>
          {mode === null ? (
            <Center py="md">
              <Loader size="sm" aria-label="Loading" />
            </Center>
          ) : mode === 'invite' && inviteCode ? (
            <AcceptInvite code={inviteCode} onToken={onToken} onSignIn={(l) => (setLogin(l), setMode('password'))} />
          ) : mode === 'password' ? (
            <PasswordSignIn login={login} onLogin={setLogin} onToken={onToken} outerError={outerError} />
          ) : (
            <TokenSignIn onToken={onToken} outerError={outerError} />
          )}
          {(mode === 'password' || mode === 'token') && (
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
        <Text size="sm">
          Open the <b>login link</b> the server printed when it started (<Code>Log in (one-time link, 10 min): …</Code>) in this browser, or paste the <b>API token</b> here.
        </Text>
        <Text c="dimmed" size="sm">
          Lost them? Where the app runs, <Code>npm run login-link</Code> prints a new link. The token was printed at the first start and is kept in the data folder.
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
