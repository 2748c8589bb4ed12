/**
 * Pure: coordinates from what an owner pastes: a Google Maps or Apple Maps link, or
 * "lat, lng" as text. Google Maps links carry them as `@lat,lng,zoom`, `!3dlat!4dlng` (a place),
 * `q=`/`query=`/`ll=`/`center=` parameters; Apple Maps as `ll=`, `q=`, `sll=` or `coordinate=`.
 * Short links (maps.app.goo.gl) carry none: they need the network to expand, so they answer null.
 */

export interface Coordinates {
  latitude: number
  longitude: number
}

const PAIR = /(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)/

function valid(lat: number, lng: number): Coordinates | null {
  return Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? { latitude: lat, longitude: lng } : null
}

function fromPair(text: string | null | undefined): Coordinates | null {
  const m = text ? PAIR.exec(text) : null
  return m ? valid(Number(m[1]), Number(m[2])) : null
}

/** The coordinates in `input`, or null when it names none. */
export function parseCoordinates(input: string): Coordinates | null {
  const text = input.trim()
  if (!text) return null
  if (!/^https?:\/\//i.test(text)) {
    // Plain "45.4642, 9.19" (what Google Maps copies on a right click).
    const m = /^(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)$/.exec(text)
    return m ? valid(Number(m[1]), Number(m[2])) : null
  }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return null
  }
  const path = decodeURIComponent(url.pathname)
  // A place page: the pin itself (!3d…!4d…) is more exact than the map's centre (@…).
  const place = /!3d(-?\d+(?:\.\d+)?)!4d(-?\d+(?:\.\d+)?)/.exec(path)
  if (place) return valid(Number(place[1]), Number(place[2]))
  const at = /@(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)/.exec(path)
  if (at) return valid(Number(at[1]), Number(at[2]))
  for (const key of ['ll', 'q', 'query', 'center', 'sll', 'coordinate', 'daddr']) {
    const found = fromPair(url.searchParams.get(key))
    if (found) return found
  }
  return null
}
