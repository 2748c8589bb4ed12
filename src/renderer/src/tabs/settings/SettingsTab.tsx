/**
 * Settings of the selected instance (general, bot actions, active days, active hours, split hours and holidays, away message, hand-off, opt-out, the assistant,
 * history (how long messages are kept), webhook with its secret and delivery log), the app settings (backups: made, kept, downloaded,
 * restored; SMTP for e-mail notifications) and About (version, updates, data folder). Each settings section is its own form that saves on
 * its own and shows the server's validation messages next to the fields.
 */
import { Card, Stack, Title } from '@mantine/core'
import { NeedInstance } from '../../components/NeedInstance'
import { useMayCall, useSelectedInstance } from '../../store'
import { AboutSection } from './AboutSection'
import { ActionsSection } from './ActionsSection'
import { ActiveDaysSection } from './ActiveDaysSection'
import { ActiveHoursSection } from './ActiveHoursSection'
import { AwaySection } from './AwaySection'
import { BackupSection } from './BackupSection'
import { DeliveryLog } from './DeliveryLog'
import { GeneralSection } from './GeneralSection'
import { HandoffSection } from './HandoffSection'
import { HistorySection } from './HistorySection'
import { OpeningHoursSection } from './OpeningHoursSection'
import { OptOutSection } from './OptOutSection'
import { SmtpSection } from './SmtpSection'
import { WebhookSection } from './WebhookSection'
import { WorkersSection } from './WorkersSection'
import { AssistantSection } from '../assistant/AssistantSection'

export function SettingsTab() {
  const inst = useSelectedInstance()
  // A manager sets the bot up; history, the webhook, backups, SMTP and updates are the owner's (`admin`).
  const admin = useMayCall('backups.status')
  return (
    <Stack maw={900}>
      {inst ? (
        <Stack key={inst._id}>
          <Title order={4}>Settings of {inst.settings.bot_name}</Title>
          <GeneralSection inst={inst} />
          <ActionsSection inst={inst} />
          <ActiveDaysSection inst={inst} />
          <ActiveHoursSection inst={inst} />
          <OpeningHoursSection inst={inst} />
          <AwaySection inst={inst} />
          <HandoffSection inst={inst} />
          <OptOutSection inst={inst} />
          <AssistantSection inst={inst} />
          {admin && (
            <>
              <HistorySection inst={inst} />
              <WebhookSection inst={inst} />
              <Card withBorder>
                <DeliveryLog instanceId={inst._id} />
              </Card>
            </>
          )}
        </Stack>
      ) : (
        <NeedInstance />
      )}
      {/* The whole app's, so shown without an instance too (a backup restored onto a fresh install). */}
      {admin && (
        <>
          <WorkersSection />
          <BackupSection />
          <SmtpSection />
          <AboutSection />
        </>
      )}
    </Stack>
  )
}
