/**
 * Surveys of the selected instance, grouped by title with their ordered steps (move up/down to
 * reorder), a step editor (question, keywords as chips, action), the responses table and CSV export.
 */
import { useMediaQuery } from '@mantine/hooks'
import { ActionIcon, Badge, Button, Card, Checkbox, EmptyState, Group, Modal, NumberInput, Stack, Table, TagsInput, Text, TextInput, Textarea, Title } from '@mantine/core'
import { useState } from 'react'
import type { Action, Survey } from '../../../shared/schemas/records'
import { ActionEditor } from '../components/ActionEditor'
import { ErrorAlert, fieldError } from '../components/ErrorAlert'
import { NeedInstance } from '../components/NeedInstance'
import { saveCsv } from '../components/files'
import { useAction, useContract } from '../hooks'
import { call, useSelectedInstance } from '../store'
import { keywordList } from '../../../shared/domain/keywords'

type Editing = { step: Survey | null; title: string; sortId: number } | null

export function SurveysTab() {
  const inst = useSelectedInstance()
  const id = inst?._id
  const list = useContract('surveys.list', id ? { instanceId: id } : null, (e) => e.type === 'changed' && e.what === 'surveys' && e.instanceId === id)
  const [editing, setEditing] = useState<Editing>(null)
  if (!inst) return <NeedInstance />
  const groups = new Map<string, Survey[]>()
  for (const s of list.data ?? []) groups.set(s.title, [...(groups.get(s.title) ?? []), s])
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={4}>Surveys</Title>
        <Button onClick={() => setEditing({ step: null, title: '', sortId: 1 })}>New survey</Button>
      </Group>
      <ErrorAlert error={list.error} />
      {list.data?.length === 0 && (
        <EmptyState title="No surveys yet" description="A survey asks questions one after another. Its first step's keywords start it; later steps may limit the accepted answers." />
      )}
      {[...groups.entries()].map(([title, steps]) => (
        <SurveyCard key={title} instanceId={inst._id} title={title} steps={steps} onEdit={setEditing} onChanged={list.reload} />
      ))}
      {editing && <StepEditor instanceId={inst._id} editing={editing} onClose={() => setEditing(null)} onSaved={() => (setEditing(null), void list.reload())} />}
    </Stack>
  )
}

function SurveyCard({ instanceId, title, steps, onEdit, onChanged }: { instanceId: string; title: string; steps: Survey[]; onEdit(e: Editing): void; onChanged(): Promise<void> }) {
  const act = useAction()
  const [showResponses, setShowResponses] = useState(false)
  const [deleting, setDeleting] = useState<Survey | null>(null)
  const move = (i: number, by: number) =>
    act.run(async () => {
      const ids = steps.map((s) => s._id)
      ;[ids[i], ids[i + by]] = [ids[i + by]!, ids[i]!]
      await call('surveys.reorder', { instanceId, stepIds: ids })
      await onChanged()
    })
  // A phone shows each step as a small card; the table would not fit.
  const narrow = useMediaQuery('(max-width: 48em)')
  const trigger = (s: Survey, i: number) => (i === 0 ? (s.keyword ? `starts on: ${s.keyword}` : 'no trigger (started by an action only)') : s.keyword || 'any answer')
  const controls = (s: Survey, i: number) => (
    <Group gap={4} justify="flex-end" wrap="nowrap">
      <ActionIcon variant="subtle" aria-label="Move step up" disabled={i === 0 || act.busy} onClick={() => move(i, -1)}>
        ↑
      </ActionIcon>
      <ActionIcon variant="subtle" aria-label="Move step down" disabled={i === steps.length - 1 || act.busy} onClick={() => move(i, 1)}>
        ↓
      </ActionIcon>
      <Button size="compact-sm" variant="light" onClick={() => onEdit({ step: s, title, sortId: s.sort_id })}>
        Edit
      </Button>
      <Button size="compact-sm" variant="subtle" color="red" onClick={() => setDeleting(s)}>
        Delete
      </Button>
    </Group>
  )
  return (
    <Card withBorder data-testid="survey-card">
      <Group justify="space-between" mb="sm">
        <Group>
          <Title order={5}>{title}</Title>
          <Badge variant="light">{steps.length === 1 ? '1 step' : `${steps.length} steps`}</Badge>
        </Group>
        <Group gap="xs">
          <Button size="xs" variant="light" onClick={() => onEdit({ step: null, title, sortId: (steps.at(-1)?.sort_id ?? 0) + 1 })}>
            Add step
          </Button>
          <Button size="xs" variant="default" onClick={() => setShowResponses((v) => !v)}>
            {showResponses ? 'Hide responses' : 'Responses'}
          </Button>
        </Group>
      </Group>
      <ErrorAlert error={act.error} />
      {!narrow && (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={60}>#</Table.Th>
              <Table.Th>Question</Table.Th>
              <Table.Th>Keywords / accepted answers</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {steps.map((s, i) => (
              <Table.Tr key={s._id}>
                <Table.Td>{s.sort_id}</Table.Td>
                <Table.Td>{s.reply}</Table.Td>
                <Table.Td>
                  <Text size="sm" c={s.keyword ? undefined : 'dimmed'}>
                    {trigger(s, i)}
                  </Text>
                </Table.Td>
                <Table.Td>{controls(s, i)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {narrow && (
        <Stack gap="xs">
          {steps.map((s, i) => (
            <Card key={s._id} withBorder padding="xs" data-testid="survey-step">
              <Text size="sm" fw={500}>
                {s.sort_id}. {s.reply}
              </Text>
              <Text size="xs" c="dimmed">
                {trigger(s, i)}
              </Text>
              {controls(s, i)}
            </Card>
          ))}
        </Stack>
      )}
      {showResponses && <Responses instanceId={instanceId} steps={steps} />}
      <Modal opened={!!deleting} onClose={() => setDeleting(null)} title="Delete step?">
        <Text size="sm">“{deleting?.reply}” will be removed from {title}.</Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={() => setDeleting(null)}>
            Cancel
          </Button>
          <Button color="red" onClick={() => act.run(async () => (await call('surveys.delete', { instanceId, id: deleting!._id }), setDeleting(null), await onChanged()))}>
            Delete
          </Button>
        </Group>
      </Modal>
    </Card>
  )
}

function Responses({ instanceId, steps }: { instanceId: string; steps: Survey[] }) {
  const r = useContract('surveys.responses', { instanceId, id: steps[0]!._id }, (e) => e.type === 'changed' && e.what === 'surveys' && e.instanceId === instanceId)
  const mark = useAction()
  const questions = steps.map((s) => ({ id: s._id, question: s.reply }))
  const download = useAction()
  const exportCsv = async () => {
    const { fileName, csv } = await call('surveys.responsesCsv', { instanceId, id: steps[0]!._id })
    saveCsv(fileName, csv)
  }
  return (
    <Stack mt="md" gap="xs">
      <Group justify="space-between">
        <Text fw={600}>Responses</Text>
        <Button size="xs" variant="default" onClick={() => void download.run(exportCsv)} loading={download.busy} disabled={!r.data?.length}>
          Export CSV
        </Button>
      </Group>
      <ErrorAlert error={r.error ?? download.error ?? mark.error} />
      {r.data?.length === 0 && <Text c="dimmed" size="sm">Nobody has answered yet.</Text>}
      {!!r.data?.length && (
        <Table.ScrollContainer minWidth={600}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Handled</Table.Th>
                <Table.Th>Contact</Table.Th>
                <Table.Th>Status</Table.Th>
                {questions.map((q) => (
                  <Table.Th key={q.id}>{q.question}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {r.data.map((run) => (
                <Table.Tr key={run._id}>
                  <Table.Td>
                    <Checkbox
                      aria-label={`Handled: ${run.pushName ?? run.phone}`}
                      checked={run.handled}
                      onChange={(e) => {
                        const handled = e.currentTarget.checked
                        void mark.run(async () => (await call('surveys.markHandled', { instanceId, run_id: run._id, handled }), await r.reload()))
                      }}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{run.pushName ?? run.phone}</Text>
                    <Text size="xs" c="dimmed">
                      {run.phone} · {run.completed_local ?? run.started_local}
                    </Text>
                  </Table.Td>
                  <Table.Td>{run.status}</Table.Td>
                  {questions.map((q) => (
                    <Table.Td key={q.id}>{run.answers.find((a) => a.step_id === q.id)?.answer ?? ''}</Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  )
}

function StepEditor({ instanceId, editing, onClose, onSaved }: { instanceId: string; editing: NonNullable<Editing>; onClose(): void; onSaved(): void }) {
  const { step } = editing
  const [title, setTitle] = useState(editing.title)
  const [reply, setReply] = useState(step?.reply ?? '')
  const [keywords, setKeywords] = useState<string[]>(step ? keywordList(step.keyword) : [])
  const [sortId, setSortId] = useState<number | string>(editing.sortId)
  const [action, setAction] = useState<Action | undefined>(step?.action)
  const [closing, setClosing] = useState(step?.closing_msg ?? '')
  // The closing message belongs to the survey: it is edited on its first step.
  const isFirst = Number(sortId) <= 1 || (step !== null && step.sort_id <= 1)
  const save = useAction()
  const submit = (e: React.FormEvent) => {
    e.preventDefault()
    void save.run(async () => {
      const body = { title: title.trim(), reply, keyword: keywords.join(', '), sort_id: Number(sortId) }
      if (step) await call('surveys.update', { instanceId, id: step._id, ...body, action: action ?? null, ...(isFirst ? { closing_msg: closing.trim() || null } : {}) })
      else await call('surveys.create', { instanceId, ...body, ...(action ? { action } : {}), ...(isFirst && closing.trim() ? { closing_msg: closing.trim() } : {}) })
      onSaved()
    })
  }
  return (
    <Modal opened onClose={onClose} title={step ? 'Edit step' : editing.title ? `New step of ${editing.title}` : 'New survey'} size="xl">
      <form onSubmit={submit}>
        <Stack>
          <Group grow>
            <TextInput label="Survey title" required value={title} onChange={(e) => setTitle(e.currentTarget.value)} error={fieldError(save.error, 'title')} />
            <NumberInput label="Step order" value={sortId} onChange={setSortId} error={fieldError(save.error, 'sort_id')} />
          </Group>
          <Textarea label="Question" required autosize minRows={2} value={reply} onChange={(e) => setReply(e.currentTarget.value)} error={fieldError(save.error, 'reply')} />
          <TagsInput
            label="Keywords"
            description="First step: the words that start the survey. Later steps: the accepted answers (none = any answer)."
            value={keywords}
            onChange={setKeywords}
            splitChars={[',']}
            error={fieldError(save.error, 'keyword')}
          />
          <ActionEditor instanceId={instanceId} value={action} onChange={setAction} error={save.error} />
          {isFirst && (
            <Textarea
              label="Closing message"
              description="Sent when someone finishes the survey. [name] is the customer, [answer:2] the answer to step 2. Empty = none."
              autosize
              minRows={2}
              value={closing}
              onChange={(e) => setClosing(e.currentTarget.value)}
              error={fieldError(save.error, 'closing_msg')}
              data-testid="closing-msg"
            />
          )}
          <ErrorAlert error={save.error} title="Not saved" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.busy}>
              Save step
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
