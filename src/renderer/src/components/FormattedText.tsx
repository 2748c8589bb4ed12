/** A message text with WhatsApp's formatting rendered (src/shared/domain/wa-format.ts). */
import { Code } from '@mantine/core'
import { Fragment, type ReactNode } from 'react'
import { parseWhatsAppFormat, type FormatNode } from '../../../shared/domain/wa-format'

function render(nodes: FormatNode[]): ReactNode[] {
  return nodes.map((n, i) => {
    if (typeof n === 'string') return <Fragment key={i}>{n}</Fragment>
    const inner = render(n.children)
    switch (n.tag) {
      case 'b':
        return <strong key={i}>{inner}</strong>
      case 'i':
        return <em key={i}>{inner}</em>
      case 's':
        return <s key={i}>{inner}</s>
      case 'code':
        return <Code key={i}>{inner}</Code>
      case 'pre':
        return (
          <Code key={i} block>
            {inner}
          </Code>
        )
    }
  })
}

export function FormattedText({ text }: { text: string }) {
  return <>{render(parseWhatsAppFormat(text))}</>
}
