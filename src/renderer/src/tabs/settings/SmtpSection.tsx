/** The app's SMTP server for the notification action's e-mails; the password is never shown back. */
import { NumberInput, PasswordInput, SimpleGrid, Switch, Text, TextInput } from '@mantine/core'
import { useEffect } from 'react'
import type { ContractOutput } from '../../../../shared/contract'
import { useContract } from '../../hooks'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

type Smtp = ContractOutput<'appSettings.get'>['smtp']

function formValues(smtp: Smtp) {
  return { host: smtp?.host ?? '', port: (smtp?.port ?? 587) as number | string, secure: smtp?.secure ?? false, user: smtp?.user ?? '', pass: '', from: smtp?.from ?? '' }
}

export function SmtpSection() {
  const loaded = useContract('appSettings.get', {})
  const smtp = loaded.data?.smtp ?? null
  const { form, section } = useSectionForm(
    formValues(null),
    async (f) => {
      await call('appSettings.setSmtp', {
        smtp: f.host.trim()
          ? { host: f.host.trim(), port: Number(f.port), secure: f.secure, from: f.from.trim(), ...(f.user ? { user: f.user } : {}), ...(f.pass ? { pass: f.pass } : {}) }
          : null
      })
      await loaded.reload()
    },
    'smtp.'
  )
  const { setValues } = form
  useEffect(() => {
    if (smtp) setValues(formValues(smtp))
  }, [smtp, setValues])
  return (
    <Section title="App: e-mail (SMTP) for notifications" section={section}>
      <Text size="sm" c="dimmed">
        Used by the send_notification action to e-mail you. Leave the host empty to switch e-mail off.
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <TextInput label="Host" {...form.getInputProps('host')} />
        <NumberInput label="Port" min={1} max={65535} {...form.getInputProps('port')} />
        <Switch mt="xl" label="TLS (secure)" {...form.getInputProps('secure', { type: 'checkbox' })} />
        <TextInput label="User" {...form.getInputProps('user')} />
        <PasswordInput label="Password" placeholder={smtp?.hasPassword ? '(unchanged)' : ''} {...form.getInputProps('pass')} />
        <TextInput label="From address" {...form.getInputProps('from')} />
      </SimpleGrid>
    </Section>
  )
}
