/** The card frame the assistant's cards share (usage, knowledge, the Ask box): a border and a title. */
import { Card, Title } from '@mantine/core'

export function AssistantCard({ title, children, testId }: { title: string; children: React.ReactNode; testId?: string }) {
  return (
    <Card withBorder data-testid={testId}>
      <Title order={5} mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  )
}
