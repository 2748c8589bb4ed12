/** Bot name, time zone, language and default message (docs/api-seed.md §4.3 updateGeneral). */
import { Autocomplete, SimpleGrid, TextInput, Textarea } from '@mantine/core'
import type { Instance } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

/** The IANA zones this browser knows, for the picker (a typed offset like +05:30 is accepted too). */
const ZONES: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
const PC_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone

export function GeneralSection({ inst }: { inst: Instance }) {
  const s = inst.settings
  const { form, section } = useSectionForm({ bot_name: s.bot_name, bot_timezone: s.bot_timezone, bot_lang: s.bot_lang, default_msg: s.default_msg }, (v) =>
    call('settings.updateGeneral', { instanceId: inst._id, ...v })
  )
  return (
    <Section title="General" section={section}>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <TextInput label="Bot name" required {...form.getInputProps('bot_name')} />
        <Autocomplete label="Time zone" description={`Pick or type a zone (this PC: ${PC_ZONE})`} data={ZONES} limit={12} {...form.getInputProps('bot_timezone')} />
        <TextInput label="Language" description="e.g. en, pt-BR" {...form.getInputProps('bot_lang')} />
      </SimpleGrid>
      <Textarea
        label="Default message"
        description="Sent when nothing matches. {a|b} picks one at random, [name] is the contact's name."
        autosize
        minRows={2}
        {...form.getInputProps('default_msg')}
      />
    </Section>
  )
}
