/** People (owner, `admin`): the people at the desk, the API keys for scripts and the audit log. */
import { Stack, Title } from '@mantine/core'
import { ApiKeysCard } from './ApiKeysCard'
import { AuditCard } from './AuditCard'
import { PeopleCard } from './PeopleCard'

export function PeopleTab() {
  return (
    <Stack maw={900}>
      <Title order={4}>People and access</Title>
      <PeopleCard />
      <ApiKeysCard />
      <AuditCard />
    </Stack>
  )
}
