import { describe, expect, it } from 'vitest'
import { parseCoordinates } from '../../../src/shared/domain/map-link'

describe('coordinates from a maps link', () => {
  it('reads Google Maps links: a place pin, the map centre, q= and query=', () => {
    expect(parseCoordinates('https://www.google.com/maps/place/Duomo+di+Milano/@45.4640976,9.1893516,17z/data=!3m1!4b1!4m6!3m5!1s0x4786c6aec34636a1:0x!8m2!3d45.4640976!4d9.1919265')).toEqual({
      latitude: 45.4640976,
      longitude: 9.1919265
    })
    expect(parseCoordinates('https://www.google.com/maps/@40.7127,-74.0059,15z')).toEqual({ latitude: 40.7127, longitude: -74.0059 })
    expect(parseCoordinates('https://maps.google.com/?q=28.6139,77.2090')).toEqual({ latitude: 28.6139, longitude: 77.209 })
    expect(parseCoordinates('https://www.google.com/maps/search/?api=1&query=-33.8568,151.2153')).toEqual({ latitude: -33.8568, longitude: 151.2153 })
  })

  it('reads Apple Maps links and plain "lat, lng"', () => {
    expect(parseCoordinates('https://maps.apple.com/?ll=51.5007,-0.1246&q=Big%20Ben')).toEqual({ latitude: 51.5007, longitude: -0.1246 })
    expect(parseCoordinates('https://maps.apple.com/place?coordinate=48.8584,2.2945&name=Eiffel')).toEqual({ latitude: 48.8584, longitude: 2.2945 })
    expect(parseCoordinates(' 45.4642, 9.19 ')).toEqual({ latitude: 45.4642, longitude: 9.19 })
  })

  it('answers null for links without coordinates, out-of-range values and plain words', () => {
    expect(parseCoordinates('https://maps.app.goo.gl/abc123')).toBeNull()
    expect(parseCoordinates('https://maps.google.com/?q=Via+Roma+1')).toBeNull()
    expect(parseCoordinates('95.0, 10')).toBeNull()
    expect(parseCoordinates('Via Roma 1, Milano')).toBeNull()
    expect(parseCoordinates('')).toBeNull()
  })
})
