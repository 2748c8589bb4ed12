/**
 * Hand-off to a person (docs/design.md §13): how long a reply from the desk or the phone pauses the bot
 * for that chat (0 = never), the words a customer writes to ask for a person and who hears of it, and
 * how a burst of messages is answered once.
 */
import { NumberInput, SimpleGrid, TextInput } from '@mantine/core'
import { DEFAULT_HANDOFF, type Instance } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

export function HandoffSection({ inst }: { inst: Instance }) {
  const current = { ...DEFAULT_HANDOFF, ...inst.settings.handoff }
  const { form, section } = useSectionForm(
    {
      pause_minutes: current.pause_minutes,
      keyword: current.keyword,
      notify: { chatapp_number: current.notify?.chatapp_number ?? '', email: current.notify?.email ?? '' },
      burst_seconds: current.burst_seconds ?? 0
    },
    (v) =>
      call('handoff.settings', {
        instanceId: inst._id,
        pause_minutes: Number(v.pause_minutes),
        keyword: v.keyword,
        burst_seconds: Number(v.burst_seconds),
        notify: { ...(v.notify.chatapp_number.trim() ? { chatapp_number: v.notify.chatapp_number.trim() } : {}), ...(v.notify.email.trim() ? { email: v.notify.email.trim() } : {}) }
      })
  )
  return (
    <Section title="Hand-off to a person" section={section}>
      <NumberInput
        label="Pause the bot after a person replies (minutes)"
        description="A reply from this desk or from the phone silences the bot in that chat for this long. 0 = never pause."
        min={0}
        max={10080}
        {...form.getInputProps('pause_minutes')}
      />
      <TextInput
        label="Customer asks for a person with"
        description="Comma-separated words, e.g. agent, human. The bot then pauses for that chat until you hand it back, and tells you. Empty = off."
        {...form.getInputProps('keyword')}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Tell me on WhatsApp at" placeholder="+39 333 123 4567" description="Optional; the desktop app notifies you anyway" {...form.getInputProps('notify.chatapp_number')} />
        <TextInput label="Tell me by e-mail at" placeholder="you@example.com" description="Optional; needs the SMTP server below" {...form.getInputProps('notify.email')} />
      </SimpleGrid>
      <NumberInput
        label="Answer a burst of messages once (seconds)"
        description="Messages a customer sends within this many seconds of each other get one answer (to the first). 0 = answer each."
        min={0}
        max={60}
        {...form.getInputProps('burst_seconds')}
      />
    </Section>
  )
}
