/** What a broadcast or a scheduled message sends: text with spintax and [name], and saved files. */
import { MultiSelect, Textarea } from '@mantine/core'
import type { UseFormReturnType } from '@mantine/form'
import { useContract } from '../../hooks'

export interface MessageValues {
  text: string
  attachments: string[]
}

/** The contract's `message` from the form's values (empty parts left out). */
export function outreachMessage(v: MessageValues): { text?: string; attachments?: string[] } {
  return { ...(v.text.trim() ? { text: v.text } : {}), ...(v.attachments.length ? { attachments: v.attachments } : {}) }
}

export function MessageFields<V extends { message: MessageValues }>({ form, instanceId }: { form: UseFormReturnType<V>; instanceId: string }) {
  const files = useContract('attachments.list', { instanceId }, (e) => e.type === 'changed' && e.what === 'attachments')
  return (
    <>
      <Textarea
        label="Message"
        description="[name] is each person’s name; {Hi|Hello} picks one at random for each person."
        autosize
        minRows={3}
        {...form.getInputProps('message.text')}
      />
      <MultiSelect
        label="Files"
        placeholder={files.data?.length ? 'Send saved files too' : 'No saved files (add them in the Inbox tab)'}
        data={(files.data ?? []).map((a) => ({ value: a._id, label: a.filename }))}
        clearable
        {...form.getInputProps('message.attachments')}
      />
    </>
  )
}
