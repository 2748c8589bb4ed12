/**
 * The audit log (owner), newest first: when, who, what and from which address; filtered by kind,
 * read a page at a time ("Load more" pages by `before` = the last entry's `seq`).
 */
import { Button, Card, Group, Paper, Select, Stack, Text } from '@mantine/core'
import { useCallback, useEffect, useState } from 'react'
import type { AuditEntryViewT } from '../../../../shared/operations/table/people'
import { CardHeader } from '../../components/CardHeader'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'
import { call } from '../../store'
import { useInstanceName } from './InstancesPicker'
import { auditWhat, auditWho, when } from './people-text'

const PAGE = 50
const KINDS = [
  { value: '', label: 'Everything' },
  { value: 'login', label: 'Sign-ins' },
  { value: 'login_failed', label: 'Failed sign-ins' },
  { value: 'logout', label: 'Sign-outs' },
  { value: 'key_used', label: 'API key use' },
  { value: 'change', label: 'Changes' }
] as const
type Kind = Exclude<(typeof KINDS)[number]['value'], ''>

export function AuditCard() {
  const [kind, setKind] = useState<Kind | ''>('')
  const [entries, setEntries] = useState<AuditEntryViewT[]>([])
  const [more, setMore] = useState(false)
  const act = useAction()
  const load = useCallback(
    (before?: number) =>
      act.run(async () => {
        const page = await call('audit.list', { limit: PAGE + 1, ...(before ? { before } : {}), ...(kind ? { kind } : {}) })
        setMore(page.length > PAGE)
        setEntries((shown) => [...(before ? shown : []), ...page.slice(0, PAGE)])
      }),
    [kind]
  )
  useEffect(() => void load(), [load])
  return (
    <Card withBorder id="audit" data-testid="audit-card">
      <CardHeader title="Audit log">
        <Group gap="xs" wrap="nowrap">
          <Select size="xs" w={150} aria-label="Show" data={KINDS.map((k) => ({ ...k }))} value={kind} onChange={(v) => setKind((v ?? ''))} allowDeselect={false} />
          <Button size="xs" variant="default" onClick={() => void load()} loading={act.busy && entries.length > 0}>
            Refresh
          </Button>
        </Group>
      </CardHeader>
      <ErrorAlert error={act.error} />
      {!act.busy && entries.length === 0 && (
        <Text size="sm" c="dimmed">
          Nothing recorded{kind ? ' of this kind' : ''} yet.
        </Text>
      )}
      <Stack gap={4}>
        {entries.map((e) => (
          <AuditRow key={e.seq} e={e} />
        ))}
      </Stack>
      {more && (
        <Group justify="center" mt="sm">
          <Button size="xs" variant="light" loading={act.busy} onClick={() => void load(entries[entries.length - 1]!.seq)}>
            Load more
          </Button>
        </Group>
      )}
    </Card>
  )
}

/** One entry: what and who on the first line, when and from where under it. */
function AuditRow({ e }: { e: AuditEntryViewT }) {
  const nameOf = useInstanceName()
  return (
    <Paper withBorder px="xs" py={4} data-testid="audit-row" data-kind={e.kind}>
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Text size="sm" style={{ minWidth: 0, wordBreak: 'break-word' }}>
          <b>{auditWho(e)}</b> · {auditWhat(e, nameOf)}
        </Text>
        <Text size="xs" c="dimmed">
          {when(e.at)}
          {e.ip ? ` · ${e.ip}` : ''}
        </Text>
      </Group>
    </Paper>
  )
}
