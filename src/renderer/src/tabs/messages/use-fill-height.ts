/**
 * The room an element has from where it starts on the page down to the window's bottom edge, so an
 * open chat (messages, then the composer) fits the window and the composer shows without scrolling.
 * Recomputed when the window or the page above it changes size (a banner coming, the tab row wrapping).
 */
import { useLayoutEffect, useRef, useState, type RefObject } from 'react'

/** [ref to attach, height in px (null until measured)]; `bottom` is the margin kept under it (px). */
export function useFillHeight<T extends HTMLElement>(bottom = 16): [RefObject<T | null>, number | null] {
  const ref = useRef<T>(null)
  const [height, setHeight] = useState<number | null>(null)
  useLayoutEffect(() => {
    const measure = () => {
      const el = ref.current
      if (!el) return
      // From the top of the page, not of the viewport: a scrolled page measures the same.
      const top = el.getBoundingClientRect().top + window.scrollY
      setHeight(Math.floor(window.innerHeight - top - bottom))
    }
    measure()
    window.addEventListener('resize', measure)
    const observer = new ResizeObserver(measure)
    observer.observe(document.body)
    return () => {
      window.removeEventListener('resize', measure)
      observer.disconnect()
    }
  }, [bottom])
  return [ref, height]
}
