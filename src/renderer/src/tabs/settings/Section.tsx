/**
 * One settings section: a @mantine/form form in a card that saves on its own, shows the server's field
 * problems next to the fields and says "Saved" until the next try.
 */
import { Button, Card, Group, Stack, Text, Title } from '@mantine/core'
import { useForm, type UseFormReturnType } from '@mantine/form'
import { useEffect, useState, type FormEvent, type ReactNode } from 'react'
import { ErrorAlert, type FormFields } from '../../components/ErrorAlert'
import { showFieldErrors } from '../../components/form-errors'
import { useAction } from '../../hooks'
import { useDesk } from '../../store'
import { markDirty } from '../../unsaved'

export interface SectionState {
  onSubmit(event?: FormEvent<HTMLFormElement>): void
  busy: boolean
  error: unknown
  saved: boolean
  /** The form's fields, so the alert does not repeat the problems shown on them. */
  fields: FormFields
  /** Changed since loaded or last saved. */
  dirty: boolean
}

/** A section's form over `initialValues`; `save` sends them (field problems under `prefix`). */
export function useSectionForm<V extends Record<string, unknown>>(initialValues: V, save: (values: V) => Promise<unknown>, prefix = ''): { form: UseFormReturnType<V>; section: SectionState } {
  const form = useForm<V>({ initialValues })
  const action = useAction()
  const [saved, setSaved] = useState(false)
  const onSubmit = form.onSubmit((values) => {
    void action.run(async () => {
      setSaved(false)
      try {
        await save(values)
      } catch (err) {
        showFieldErrors(form, err, prefix)
        throw err
      }
      setSaved(true)
      // What was saved is the new baseline: the form is no longer "unsaved".
      form.resetDirty(values)
      await useDesk.getState().refreshInstances()
    })
  })
  return { form, section: { onSubmit, busy: action.busy, error: action.error, saved, fields: { keys: Object.keys(initialValues), prefix }, dirty: form.isDirty() } }
}

export function Section({ title, section, children }: { title: string; section: SectionState; children: ReactNode }) {
  useEffect(() => {
    markDirty(title, section.dirty)
    return () => markDirty(title, false)
  }, [title, section.dirty])
  return (
    <Card withBorder component="form" onSubmit={(e: FormEvent) => section.onSubmit(e as FormEvent<HTMLFormElement>)} aria-label={title}>
      <Title order={5} mb="sm">
        {title}
      </Title>
      <Stack gap="sm">
        {children}
        <SaveRow section={section} />
      </Stack>
    </Card>
  )
}

/** A section form's foot: the problems the save met, the Save button, and "Unsaved changes" or "Saved". */
export function SaveRow({ section, disabled = false }: { section: SectionState; disabled?: boolean }) {
  return (
    <>
      <ErrorAlert error={section.error} title="Not saved" form={section.fields} />
      <Group gap="sm">
        <Button type="submit" loading={section.busy} disabled={disabled}>
          Save
        </Button>
        {section.dirty && (
          <Text size="sm" c="orange" data-testid="unsaved">
            Unsaved changes
          </Text>
        )}
        {section.saved && !section.error && !section.dirty && (
          <Text size="sm" c="teal" role="status">
            Saved
          </Text>
        )}
      </Group>
    </>
  )
}
