/**
 * Importing contacts from a CSV file (docs/design.md §18 "Contacts CSV"): the file's columns mapped to name, number, labels
 * and notes (found by their usual names unless picked), an optional group, then the core's report:
 * how many were imported, how many were already saved, and each refused row with its reason.
 */
import { Alert, Button, FileButton, Group, Modal, Select, SimpleGrid, Stack, Table, Text } from '@mantine/core'
import { useEffect, useState } from 'react'
import type { ContactGroup } from '../../../../shared/schemas/records'
import type { ContractOutput } from '../../../../shared/contract'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'
import { call } from '../../store'

const FIELDS = [
  ['number', 'Number'],
  ['name', 'Name'],
  ['labels', 'Labels'],
  ['notes', 'Notes']
] as const

/** The column names of a CSV's first line (`,` or `;` separated, quotes removed). */
export function csvColumns(text: string): string[] {
  const first = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? ''
  const sep = (first.match(/;/g)?.length ?? 0) > (first.match(/,/g)?.length ?? 0) ? ';' : ','
  return first
    .split(sep)
    .map((c) => c.trim().replace(/^"(.*)"$/, '$1'))
    .filter(Boolean)
}

export function ImportPicker({ onFile }: { onFile(file: File): void }) {
  return (
    <FileButton onChange={(f) => f && onFile(f)} accept=".csv,text/csv">
      {(props) => (
        <Button size="xs" variant="default" {...props}>
          Import CSV
        </Button>
      )}
    </FileButton>
  )
}

export function ImportModal(props: { instanceId: string; file: File; groups: readonly ContactGroup[]; defaultGroup: string | null; onClose(): void; onDone(): Promise<void> }) {
  const [text, setText] = useState<string | null>(null)
  const [mapping, setMapping] = useState<Partial<Record<(typeof FIELDS)[number][0], string>>>({})
  const [groupId, setGroupId] = useState<string | null>(props.defaultGroup)
  const [report, setReport] = useState<ContractOutput<'contacts.import'> | null>(null)
  const act = useAction()
  useEffect(() => {
    void act.run(async () => setText(await props.file.text()))
  }, [props.file])
  const columns = text ? csvColumns(text) : []
  const rows = text ? text.split(/\r?\n/).filter((l) => l.trim()).length - 1 : 0
  const submit = () =>
    act.run(async () => {
      const clean = Object.fromEntries(Object.entries(mapping).filter(([, v]) => v))
      setReport(await call('contacts.import', { instanceId: props.instanceId, csv: text ?? '', mapping: clean, group_id: groupId }))
      await props.onDone()
    })
  return (
    <Modal opened onClose={props.onClose} title={`Import ${props.file.name}`} size="lg">
      {report ? (
        <Stack gap="sm" data-testid="import-report">
          <Alert color={report.refused.length ? 'yellow' : 'green'} title={`${report.imported} contacts imported`}>
            {report.existing > 0 && <Text size="sm">{report.existing} were already saved and were left as they are.</Text>}
            {report.refused.length > 0 && <Text size="sm">{report.refused.length} rows were refused:</Text>}
          </Alert>
          {report.refused.length > 0 && (
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Line</Table.Th>
                  <Table.Th>Why</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {report.refused.map((r) => (
                  <Table.Tr key={r.row}>
                    <Table.Td>{r.row}</Table.Td>
                    <Table.Td>{r.reason}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          <Group justify="flex-end">
            <Button onClick={props.onClose}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <Stack gap="sm">
          <Text size="sm">
            {rows} rows; columns: {columns.join(', ') || '—'}. Pick which column holds what (or leave “found by name”).
          </Text>
          <SimpleGrid cols={{ base: 1, xs: 2 }}>
            {FIELDS.map(([field, label]) => (
              <Select
                key={field}
                label={label}
                placeholder="found by name"
                clearable
                data={columns}
                value={mapping[field] ?? null}
                onChange={(v) => setMapping({ ...mapping, [field]: v ?? undefined })}
              />
            ))}
          </SimpleGrid>
          <Select label="Put them in the group" placeholder="No group" clearable data={props.groups.map((g) => ({ value: g._id, label: g.title }))} value={groupId} onChange={setGroupId} />
          <ErrorAlert error={act.error} />
          <Group justify="flex-end">
            <Button variant="subtle" onClick={props.onClose}>
              Cancel
            </Button>
            <Button onClick={() => void submit()} loading={act.busy} disabled={!text}>
              Import {rows} rows
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  )
}
