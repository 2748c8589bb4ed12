/**
 * Opt-out (docs/design.md §17 "Opt-out"): the words a customer writes to stop broadcasts and scheduled messages (and
 * to get them again), and what they are told. Defaults follow the bot's language.
 */
import { SimpleGrid, TextInput, Textarea } from '@mantine/core'
import { defaultOptOut, type Instance } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

export function OptOutSection({ inst }: { inst: Instance }) {
  const current = { ...defaultOptOut(inst.settings.bot_lang), ...inst.settings.opt_out }
  const { form, section } = useSectionForm(current, (v) => call('settings.optOut', { instanceId: inst._id, ...v }))
  return (
    <Section title="Opt-out" section={section}>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Opt-out words" description="The whole message, any case; comma-separated. Empty = off." {...form.getInputProps('optout_keyword')} />
        <TextInput label="Opt-in words" description="Bring an opted-out customer back." {...form.getInputProps('optin_keyword')} />
      </SimpleGrid>
      <Textarea label="Reply to an opt-out" autosize minRows={2} {...form.getInputProps('optout_reply')} />
      <Textarea label="Reply to an opt-in" autosize minRows={2} {...form.getInputProps('optin_reply')} />
    </Section>
  )
}
