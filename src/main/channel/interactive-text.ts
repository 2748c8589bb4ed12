/**
 * Buttons and lists as text (docs/design.md §6): WhatsApp does not render them from linked devices and
 * Baileys 7 removed their builders, so both channels send the body, numbered options and the footer.
 * The options are kept with the logged message so a reply with a number or title counts as pressing.
 */

export interface ButtonInput {
  type: 'replyButton' | 'urlButton' | 'callButton'
  title: string
  payload?: string
}

export interface ListInput {
  title?: string
  text: string
  description?: string
  buttonText?: string
  sections: Array<{ title?: string; rows: Array<{ title: string; description?: string; rowId?: string }> }>
}

export interface RenderedOption {
  title: string
  id?: string
}

export interface RenderedInteractive {
  text: string
  options: RenderedOption[]
}

/** `1. Menu`, `2. Site: https://…`, `3. Call: +1555…`, between the body and the footer. */
export function renderButtons(text: string, buttons: ButtonInput[], footer?: string): RenderedInteractive {
  const options: RenderedOption[] = []
  const lines = buttons.map((b, i) => {
    const n = i + 1
    options.push({ title: b.title, id: b.payload ?? b.title })
    if (b.type === 'urlButton' && b.payload) return `${n}. ${b.title}: ${b.payload}`
    if (b.type === 'callButton' && b.payload) return `${n}. Call: ${b.payload}`
    return `${n}. ${b.title}`
  })
  const parts = [text.trim(), lines.join('\n')]
  if (footer?.trim()) parts.push(`_${footer.trim()}_`)
  return { text: parts.filter(Boolean).join('\n\n'), options }
}

/** Title and text, then each section's title with its rows numbered on across sections. */
export function renderList(list: ListInput): RenderedInteractive {
  const options: RenderedOption[] = []
  const blocks: string[] = []
  if (list.title?.trim()) blocks.push(`*${list.title.trim()}*`)
  if (list.text.trim()) blocks.push(list.text.trim())
  let n = 0
  for (const section of list.sections) {
    const lines: string[] = []
    if (section.title?.trim()) lines.push(`*${section.title.trim()}*`)
    for (const row of section.rows) {
      n += 1
      options.push({ title: row.title, id: row.rowId ?? row.title })
      lines.push(row.description?.trim() ? `${n}. ${row.title} — ${row.description.trim()}` : `${n}. ${row.title}`)
    }
    blocks.push(lines.join('\n'))
  }
  const footer = list.description?.trim()
  if (footer) blocks.push(`_${footer}_`)
  blocks.push('Reply with the number of your choice.')
  return { text: blocks.join('\n\n'), options }
}
