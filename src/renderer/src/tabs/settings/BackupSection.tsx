/**
 * Settings → Backup (docs/storage.md "Backup and restore"), for the whole app, not one
 * instance: the daily backup and how many are kept, "Back up now", the kept backups (download one, restore
 * one), and "Restore from a file…". A restore replaces everything the app holds; the confirmation says so,
 * and where the current data goes. Once the app serves the restored data the page reloads (every tab reads
 * it afresh) and this section says what was restored.
 */
import { Alert, Button, Card, Code, EmptyState, FileButton, Group, List, Loader, Modal, NumberInput, Progress, Stack, Switch, Text, Title } from '@mantine/core'
import { useEffect, useRef, useState } from 'react'
import { ContractError } from '../../../../shared/contract'
import type { RestoreViewT, StoredBackupT } from '../../../../shared/operations/results'
import { ErrorAlert } from '../../components/ErrorAlert'
import { formatBytes, saveBlob } from '../../components/files'
import { useAction, useContract } from '../../hooks'
import { call, useDesk } from '../../store'
import { clearUnsaved, markDirty } from '../../unsaved'
import { backupTime, downloadBackup, failureTitle, RESTORED_KEY, restoreErrorTitle, uploadBackup } from './backup-transfer'
import { SaveRow, useSectionForm } from './Section'

const TITLE = 'Backup'

/** The settings form (NumberInput holds a string while a number is being typed). */
type BackupForm = { daily: boolean; keep: number | string }

/** What the confirmation restores: a kept backup, or a file uploaded from this computer. */
type Restoring = { kind: 'stored'; backup: StoredBackupT } | { kind: 'upload'; uploadId: string; fileName: string; size: number }

/** A transfer under way: which (a backup's name, or the picked file's) and bytes done of total. */
interface Transfer {
  name: string
  done: number
  total: number
}

const percent = (t: Transfer) => (t.total > 0 ? Math.round((t.done / t.total) * 100) : 0)

/** Settings → Backup: the app's backups, made, kept, downloaded and restored (not one instance's). */
export function BackupSection() {
  const status = useContract('backups.status', {})
  const s = status.data
  const card = useRef<HTMLDivElement>(null)
  const { form, section } = useSectionForm<BackupForm>({ daily: true, keep: 7 }, async (v) => {
    await call('backups.settings', { daily: v.daily, keep: Number(v.keep) })
    await status.reload()
  })
  const { initialize } = form
  useEffect(() => {
    if (s) initialize({ daily: s.daily, keep: s.keep })
  }, [s, initialize])
  useEffect(() => {
    markDirty(TITLE, section.dirty)
    return () => markDirty(TITLE, false)
  }, [section.dirty])
  // After a restore the page reloads at #backup: this section comes into view with what was restored.
  useEffect(() => {
    if (window.location.hash !== '#backup') return
    history.replaceState(null, '', window.location.pathname + window.location.search)
    card.current?.scrollIntoView({ block: 'start' })
  }, [])

  const making = useAction()
  const download = useAction()
  const upload = useAction()
  const [transfer, setTransfer] = useState<Transfer | null>(null)
  const [confirm, setConfirm] = useState<Restoring | null>(null)
  const resetFile = useRef<() => void>(null)
  const { reload } = status
  // No event says that a backup this page did not start (the daily one) has ended: read the status
  // again until it has, so the list and the button catch up.
  const othersRunning = !!s?.running && !making.busy
  useEffect(() => {
    if (!othersRunning) return
    const timer = setInterval(() => void reload(), 2000)
    return () => clearInterval(timer)
  }, [othersRunning, reload])

  const backUpNow = () =>
    void making.run(async () => {
      await call('backups.now', {})
      await status.reload()
    })
  const save = (b: StoredBackupT) =>
    void download.run(async () => {
      setTransfer({ name: b.name, done: 0, total: b.size })
      try {
        saveBlob(b.name, await downloadBackup(call, b.name, (done, total) => setTransfer({ name: b.name, done, total })))
      } catch (err) {
        // Dropped by "keep the last N" since the list was read: the list is read again without it.
        if (err instanceof ContractError && err.code === 'NOT_FOUND') void reload()
        throw err
      } finally {
        setTransfer(null)
      }
    })
  const pick = (file: File | null) => {
    resetFile.current?.()
    if (!file) return
    void upload.run(async () => {
      setTransfer({ name: file.name, done: 0, total: file.size })
      try {
        const uploadId = await uploadBackup(call, file, (done, total) => setTransfer({ name: file.name, done, total }))
        setConfirm({ kind: 'upload', uploadId, fileName: file.name, size: file.size })
      } finally {
        setTransfer(null)
      }
    })
  }
  const busy = making.busy || download.busy || upload.busy

  return (
    <Card withBorder component="section" id="backup" aria-label={TITLE} ref={card} data-testid="backup-section">
      <Title order={5} mb="sm">
        {TITLE}
      </Title>
      <Stack gap="md">
        <Restored />
        <Text size="sm">
          A backup is one file (.tar.gz) with everything the app keeps: instances and their settings, WhatsApp links, messages, contacts and files. Restore one if
          this computer’s data is lost or damaged, or to move the app to another computer.
        </Text>
        <Alert color="yellow" variant="light" title="Keep backups safe" data-testid="backup-warning">
          <Text size="sm">
            A backup holds secrets: the API token and the session keys of your linked WhatsApp numbers. Anyone with the file can use them to send as you. Keep downloaded
            backups somewhere only you can reach, and never send one to anybody.
          </Text>
        </Alert>

        <form aria-label="Backup settings" onSubmit={section.onSubmit}>
          <Stack gap="sm">
            <Switch
              label="Back up automatically every day"
              description={
                !s ? undefined : s.daily && s.next_at ? `Next automatic backup: ${backupTime(s.next_at)}` : 'Off: backups are made only when you click “Back up now”.'
              }
              disabled={!s}
              {...form.getInputProps('daily', { type: 'checkbox' })}
            />
            <Group gap="xs" wrap="nowrap" align="center">
              <Text size="sm">Keep the last</Text>
              <NumberInput aria-label="Backups to keep" min={1} max={365} clampBehavior="strict" allowDecimal={false} w={80} size="xs" disabled={!s} {...form.getInputProps('keep')} />
              <Text size="sm">backups</Text>
            </Group>
            <Text size="xs" c="dimmed" mt={-6}>
              Automatic backups and the ones you make count alike; past that number the oldest is deleted.
            </Text>
            <SaveRow section={section} disabled={!s} />
          </Stack>
        </form>

        <Group gap="xs">
          <Button onClick={backUpNow} loading={making.busy || s?.running} disabled={busy && !making.busy}>
            Back up now
          </Button>
          <FileButton onChange={pick} accept=".gz,.tgz,application/gzip,application/x-gzip" resetRef={resetFile}>
            {(p) => (
              <Button {...p} variant="default" loading={upload.busy} disabled={busy && !upload.busy}>
                Restore from a file…
              </Button>
            )}
          </FileButton>
        </Group>
        {upload.busy && transfer && <TransferProgress label={`Uploading ${transfer.name}`} t={transfer} />}
        <ErrorAlert error={making.error} title={failureTitle('No backup made', making.error)} />
        <ErrorAlert error={upload.error} title={failureTitle('Not uploaded', upload.error)} />
        {s?.last_error && (
          <Alert color="orange" variant="light" title="The last backup failed" role="alert">
            <Text size="sm">{s.last_error}</Text>
          </Alert>
        )}

        <Stack gap="xs">
          <Text fw={500} size="sm">
            Kept backups{s ? ` (${s.backups.length})` : ''}
          </Text>
          {s && (
            <Text size="xs" c="dimmed">
              On this computer, in <Code style={{ overflowWrap: 'anywhere' }}>{s.folder}</Code>
            </Text>
          )}
          <ErrorAlert error={status.error} />
          {status.loading && !s && <Loader size="sm" />}
          {s?.backups.length === 0 && (
            <EmptyState
              size="sm"
              title="No backup yet"
              description={s.daily ? 'The first automatic backup is made soon, or click “Back up now”.' : 'Click “Back up now” to make the first one.'}
              data-testid="backup-empty"
            />
          )}
          {s?.backups.map((b) => (
            <BackupRow key={b.name} b={b} transfer={download.busy && transfer?.name === b.name ? transfer : null} disabled={busy} onDownload={() => save(b)} onRestore={() => setConfirm({ kind: 'stored', backup: b })} />
          ))}
          <ErrorAlert error={download.error} title={failureTitle('Not downloaded', download.error)} />
        </Stack>
      </Stack>
      {confirm && (
        <RestoreModal
          what={confirm}
          onClose={() => {
            setConfirm(null)
            // A refused restore may have been of a backup dropped meanwhile: the list shows what is there.
            void reload()
          }}
        />
      )}
    </Card>
  )
}

function BackupRow({ b, transfer, disabled, onDownload, onRestore }: { b: StoredBackupT; transfer: Transfer | null; disabled: boolean; onDownload(): void; onRestore(): void }) {
  const when = backupTime(b.created_at)
  return (
    <Card withBorder padding="xs" data-testid="backup-row" data-name={b.name} data-size={b.size}>
      <Group justify="space-between" gap="xs" wrap="wrap">
        <div style={{ minWidth: 0, flex: '1 1 220px' }}>
          <Text size="sm" fw={500}>
            {when}
          </Text>
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            <span data-testid="backup-size">{formatBytes(b.size)}</span> · {b.name}
          </Text>
        </div>
        <Group gap="xs" wrap="nowrap">
          <Button size="xs" variant="default" onClick={onDownload} loading={!!transfer} disabled={disabled && !transfer} aria-label={`Download the backup of ${when}`}>
            Download
          </Button>
          <Button size="xs" variant="light" color="red" onClick={onRestore} disabled={disabled} aria-label={`Restore the backup of ${when}`}>
            Restore…
          </Button>
        </Group>
      </Group>
      {transfer && <TransferProgress label="Downloading" t={transfer} />}
    </Card>
  )
}

function TransferProgress({ label, t }: { label: string; t: Transfer }) {
  return (
    <Stack gap={4} mt="xs" data-testid="transfer-progress">
      <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        {label}: {formatBytes(t.done)} of {formatBytes(t.total)}
      </Text>
      <Progress value={percent(t)} aria-label={`${label}: ${percent(t)}%`} />
    </Stack>
  )
}

/**
 * The confirmation before a restore: what is replaced, where the current data goes, that the app
 * reconnects. On success the page reloads (see {@link afterRestore}); a refusal shows the API's message.
 */
function RestoreModal({ what, onClose }: { what: Restoring; onClose(): void }) {
  const restore = useAction()
  const web = useDesk((st) => st.info?.mode === 'web')
  const run = () =>
    void restore.run(async () => {
      const view = what.kind === 'stored' ? await call('backups.restoreStored', { name: what.backup.name }) : await call('backups.restoreUpload', { uploadId: what.uploadId })
      afterRestore(view)
    })
  // An upload is used up by a restore that failed: only a kept backup can be tried again.
  const failed = !!restore.error
  return (
    <Modal opened onClose={restore.busy ? () => {} : onClose} title="Restore this backup?" closeOnClickOutside={!restore.busy} withCloseButton={!restore.busy}>
      <Stack gap="sm" data-testid="restore-confirm">
        <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
          {what.kind === 'stored' ? `The backup of ${backupTime(what.backup.created_at)} (${formatBytes(what.backup.size)})` : `The file ${what.fileName} (${formatBytes(what.size)})`}
        </Text>
        <List size="sm" spacing={4}>
          <List.Item>Everything the app holds now is replaced by what the backup holds: instances, settings, messages, contacts and files. What came after the backup was made is not in it.</List.Item>
          <List.Item>
            The current data is not deleted: it is moved aside into a folder named <Code>replaced-&lt;time&gt;</Code> in the app’s data folder.
          </List.Item>
          <List.Item>
            The app stops for a few seconds while the data is swapped, your WhatsApp numbers reconnect, and this window reloads.
            {web ? ' If the backup has another API token, sign in with that one.' : ''}
          </List.Item>
        </List>
        {restore.busy && (
          <Group gap="xs" role="status">
            <Loader size="xs" />
            <Text size="sm">Checking the backup and restoring it…</Text>
          </Group>
        )}
        <ErrorAlert error={restore.error} title={restoreErrorTitle(restore.error)} />
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose} disabled={restore.busy}>
            {failed ? 'Close' : 'Cancel'}
          </Button>
          {!(failed && what.kind === 'upload') && (
            <Button color="red" onClick={run} loading={restore.busy}>
              Restore
            </Button>
          )}
        </Group>
      </Stack>
    </Modal>
  )
}

/** Keeps the restore's answer for after the reload, and reloads the page on Settings → Backup: every tab reads the restored data afresh. */
function afterRestore(view: RestoreViewT): void {
  sessionStorage.setItem(RESTORED_KEY, JSON.stringify(view))
  // The forms' unsaved edits were of the data just replaced: leaving must not ask about them.
  clearUnsaved()
  localStorage.setItem('chatapp.tab', 'settings')
  history.replaceState(null, '', `${window.location.pathname}${window.location.search}#backup`)
  location.reload()
}

/** What the last restore put in place (kept across its reload), until the owner closes it. */
function Restored() {
  const [view, setView] = useState<RestoreViewT | null>(() => {
    try {
      return JSON.parse(sessionStorage.getItem(RESTORED_KEY) ?? 'null') as RestoreViewT | null
    } catch {
      return null
    }
  })
  if (!view) return null
  return (
    <Alert
      color="teal"
      variant="light"
      title="Backup restored"
      withCloseButton
      closeButtonLabel="Close"
      onClose={() => (sessionStorage.removeItem(RESTORED_KEY), setView(null))}
      data-testid="backup-restored"
    >
      <Text size="sm">
        The app now works on the backup of {backupTime(view.restored.created_at)} (made by version {view.restored.app_version}). The data that was in place before is in{' '}
        <Code style={{ overflowWrap: 'anywhere' }}>{view.replaced_dir}</Code>; delete that folder once you have checked that everything is there.
      </Text>
    </Alert>
  )
}
