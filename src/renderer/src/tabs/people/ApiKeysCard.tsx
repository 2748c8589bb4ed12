/**
 * API keys for scripts (owner): each key's name, scopes, instances, when it was made and last used
 * (and from where), revoked or not; make one (the key is shown once), revoke one.
 */
import { Badge, Button, Card, Group, Modal, MultiSelect, Paper, Stack, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import { PERMISSIONS } from '../../../../shared/access'
import type { ApiKeyViewT } from '../../../../shared/operations/table/people'
import { CardHeader } from '../../components/CardHeader'
import { ErrorAlert, fieldError } from '../../components/ErrorAlert'
import { useAction, useContract } from '../../hooks'
import { call } from '../../store'
import { ConfirmModal } from './ConfirmModal'
import { InstancesPicker, useInstanceName } from './InstancesPicker'
import { instanceIdsOf, instancesText, when } from './people-text'
import { ShownOnce } from './ShownOnce'

export function ApiKeysCard() {
  const keys = useContract('apiKeys.list', {})
  const [creating, setCreating] = useState(false)
  const [revoking, setRevoking] = useState<ApiKeyViewT | null>(null)
  const nameOf = useInstanceName()
  return (
    <Card withBorder id="api-keys" data-testid="api-keys-card">
      <CardHeader title="API keys">
        <Button size="xs" onClick={() => setCreating(true)}>
          New key
        </Button>
      </CardHeader>
      <Text size="sm" c="dimmed" mb="sm">
        A key lets a script call the API with only the scopes you give it, on the instances you pick. Revoked keys are refused at once.
      </Text>
      <ErrorAlert error={keys.error} />
      {keys.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          No keys yet.
        </Text>
      )}
      <Stack gap="xs">
        {keys.data?.map((k) => <KeyRow key={k.id} k={k} instances={instancesText(k.instance_ids, nameOf)} onRevoke={() => setRevoking(k)} />)}
      </Stack>
      {creating && <NewKey onDone={keys.reload} onClose={() => setCreating(false)} />}
      {revoking && (
        <ConfirmModal
          title={`Revoke “${revoking.name}”?`}
          text="Scripts using this key are refused from now on. This cannot be undone; make a new key instead."
          action="Revoke"
          onConfirm={async () => (await call('apiKeys.delete', { id: revoking.id }), await keys.reload())}
          onClose={() => setRevoking(null)}
        />
      )}
    </Card>
  )
}

/** One key: name, scopes, instances, made, last used and from where, revoked. */
function KeyRow({ k, instances, onRevoke }: { k: ApiKeyViewT; instances: string; onRevoke(): void }) {
  return (
    <Paper withBorder p="xs" data-testid="key-row" data-revoked={!!k.revoked_at} style={{ opacity: k.revoked_at ? 0.65 : 1 }}>
      <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Group gap={6}>
            <Text fw={600} size="sm">
              {k.name}
            </Text>
            {k.revoked_at && (
              <Badge size="xs" color="red" variant="light">
                revoked {when(k.revoked_at)}
              </Badge>
            )}
          </Group>
          <Group gap={4}>
            {k.scopes.map((s) => (
              <Badge key={s} size="xs" variant="outline" color="gray" tt="none">
                {s}
              </Badge>
            ))}
          </Group>
          <Text size="xs" c="dimmed">
            {instances} · made {when(k.created_at)} · last used {when(k.last_used_at)}
            {k.last_used_ip ? ` from ${k.last_used_ip}` : ''}
          </Text>
        </Stack>
        {!k.revoked_at && (
          <Button size="compact-sm" color="red" variant="light" onClick={onRevoke} style={{ flex: 'none' }}>
            Revoke
          </Button>
        )}
      </Group>
    </Paper>
  )
}

/** The new-key dialog: name, scopes, instances; then the key, once. */
function NewKey({ onDone, onClose }: { onDone(): Promise<void>; onClose(): void }) {
  const [name, setName] = useState('')
  const [scopes, setScopes] = useState<string[]>([])
  const [instances, setInstances] = useState<string[]>([])
  const [key, setKey] = useState<string | null>(null)
  const act = useAction()
  const create = () => act.run(async () => (setKey((await call('apiKeys.create', { name: name.trim(), scopes, instance_ids: instanceIdsOf(instances) })).key), await onDone()))
  return (
    <Modal opened onClose={onClose} title="New API key" centered size="lg">
      {key ? (
        <Stack>
          <ShownOnce label="The key (shown once)" value={key} note="Copy it now: it will not be shown again. Send it as Authorization: Bearer <key>." testId="new-key" />
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={(e) => (e.preventDefault(), void create())} aria-label="New API key">
          <Stack>
            <TextInput label="Name" description="What uses it, e.g. “CRM sync”." value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus error={fieldError(act.error, 'name')} />
            <MultiSelect
              label="Scopes"
              description="admin is everything; a :write includes its :read."
              data={[...PERMISSIONS]}
              value={scopes}
              onChange={setScopes}
              searchable
              comboboxProps={{ withinPortal: true }}
              error={fieldError(act.error, 'scopes')}
            />
            <InstancesPicker value={instances} onChange={setInstances} description="The instances it may reach; none picked: every instance." />
            <ErrorAlert error={act.error} form={{ keys: ['name', 'scopes'] }} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={act.busy} disabled={!name.trim() || scopes.length === 0}>
                Make the key
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  )
}
