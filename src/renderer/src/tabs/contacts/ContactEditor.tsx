/** Adding or changing one contact: name, number, group, labels, notes, opted out; deleting it; their data (export, erase). */
import { Button, Group, Modal, Select, Stack, Switch, TagsInput, TextInput, Textarea } from '@mantine/core'
import { useForm } from '@mantine/form'
import type { Contact, ContactGroup } from '../../../../shared/schemas/records'
import { CustomerDataMenu } from '../../components/CustomerDataMenu'
import { customerLabel } from '../../components/confirm-number'
import { ErrorAlert } from '../../components/ErrorAlert'
import { showFieldErrors } from '../../components/form-errors'
import { useAction } from '../../hooks'
import { call, useDesk } from '../../store'

export function ContactEditor(props: { instanceId: string; contact: Contact | null; groups: readonly ContactGroup[]; defaultGroup: string | null; onClose(): void; onSaved(): Promise<void> }) {
  const { instanceId, contact } = props
  const act = useAction()
  const labels = useDesk((s) => s.labels)
  // A customer known by username (docs/baileys.md "Usernames"): WhatsApp gave no number, the LID keys the contact.
  const byLid = contact?.number.endsWith('@lid') ?? false
  const form = useForm({
    initialValues: {
      name: contact?.name ?? '',
      number: contact ? customerLabel(contact.number, contact.username) : '',
      group_id: contact ? contact.group_id : props.defaultGroup,
      labels: contact?.labels ?? [],
      notes: contact?.notes ?? '',
      opted_out: contact?.opted_out ?? false
    }
  })
  const save = form.onSubmit((v) =>
    act.run(async () => {
      try {
        if (contact) {
          const { number, ...rest } = v
          await call('contacts.update', { instanceId, id: contact._id, ...rest, ...(byLid ? {} : { number }) })
        }
        else await call('contacts.create', { instanceId, ...v })
      } catch (err) {
        showFieldErrors(form, err)
        throw err
      }
      await props.onSaved()
      props.onClose()
    })
  )
  const remove = () =>
    contact &&
    window.confirm(`Delete the contact ${contact.name}? Their conversations stay in the inbox.`) &&
    void act.run(async () => {
      await call('contacts.delete', { instanceId, id: contact._id })
      await props.onSaved()
      props.onClose()
    })
  return (
    <Modal opened onClose={props.onClose} title={contact ? `Contact ${contact.name}` : 'New contact'}>
      <form onSubmit={save} aria-label="Contact">
        <Stack gap="sm">
          <TextInput label="Name" {...form.getInputProps('name')} data-autofocus />
          {byLid ? (
            <TextInput label="WhatsApp username" description="They hide their number: WhatsApp shows them by username only." readOnly {...form.getInputProps('number')} />
          ) : (
            <TextInput label="WhatsApp number" description="With the country code, e.g. +39 333 1234567" {...form.getInputProps('number')} />
          )}
          <Select label="Group" placeholder="No group" clearable data={props.groups.map((g) => ({ value: g._id, label: g.title }))} {...form.getInputProps('group_id')} />
          <TagsInput label="Labels" placeholder="vip, wholesale…" data={labels.map((l) => l.name)} {...form.getInputProps('labels')} />
          <Textarea label="Notes" autosize minRows={2} {...form.getInputProps('notes')} />
          <Switch label="Opted out: no broadcasts or scheduled messages" {...form.getInputProps('opted_out', { type: 'checkbox' })} />
          <ErrorAlert error={act.error} form={{ keys: ['name', 'number', 'group_id', 'labels', 'notes'] }} />
          <Group justify="space-between">
            {contact ? (
              <Group gap="xs">
                <Button variant="subtle" color="red" onClick={remove}>
                  Delete
                </Button>
                <CustomerDataMenu instanceId={instanceId} number={contact.number} username={contact.username ?? null} name={contact.name} onErased={() => void props.onSaved().then(props.onClose)} />
              </Group>
            ) : (
              <span />
            )}
            <Button type="submit" loading={act.busy}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
