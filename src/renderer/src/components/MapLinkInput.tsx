/**
 * Paste a Google Maps or Apple Maps link (or "lat, lng") to fill latitude and longitude
 * (src/shared/domain/map-link.ts). Says what it found, or why nothing.
 */
import { TextInput } from '@mantine/core'
import { useState } from 'react'
import { parseCoordinates, type Coordinates } from '../../../shared/domain/map-link'

export function MapLinkInput({ onCoordinates }: { onCoordinates(c: Coordinates): void }) {
  const [text, setText] = useState('')
  const found = text.trim() ? parseCoordinates(text) : null
  return (
    <TextInput
      label="Maps link"
      placeholder="Paste a Google Maps or Apple Maps link, or 45.4642, 9.19"
      value={text}
      onChange={(e) => {
        const value = e.currentTarget.value
        setText(value)
        const c = parseCoordinates(value)
        if (c) onCoordinates(c)
      }}
      description={found ? `Found ${found.latitude}, ${found.longitude}` : undefined}
      error={text.trim() && !found ? 'No coordinates in this link: open a short link (maps.app.goo.gl) in the browser first and copy the full address.' : undefined}
      data-testid="map-link-input"
    />
  )
}
