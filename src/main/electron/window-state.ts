/**
 * The main window's saved size and position (`window-state.json` in the user-data folder). Pure
 * fitting logic plus tiny file I/O; a saved position that no longer lies on any display (a monitor was
 * unplugged) is dropped so the window never opens off-screen.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Bounds {
  x?: number
  y?: number
  width: number
  height: number
}
export interface SavedWindowState extends Bounds {
  maximized?: boolean
}
export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export const DEFAULT_BOUNDS: Bounds = { width: 1200, height: 820 }
const MIN = { width: 800, height: 560 }

/**
 * The bounds to open with: the saved ones, clamped to a minimum size and to the work area of a
 * display that shows at least 100×100 px of the window's top-left; without position otherwise.
 */
export function fitBounds(saved: SavedWindowState | null, workAreas: Rect[]): SavedWindowState {
  if (!saved || !Number.isFinite(saved.width) || !Number.isFinite(saved.height)) return { ...DEFAULT_BOUNDS }
  const width = Math.max(MIN.width, Math.round(saved.width))
  const height = Math.max(MIN.height, Math.round(saved.height))
  const out: SavedWindowState = { width, height, maximized: saved.maximized === true }
  if (saved.x === undefined || saved.y === undefined) return out
  const { x, y } = saved
  const visible = workAreas.some((a) => x + 100 <= a.x + a.width && y + 100 <= a.y + a.height && x + width - 100 >= a.x && y >= a.y - 10)
  return visible ? { ...out, x: Math.round(x), y: Math.round(y) } : out
}

export function windowStateFile(userDataDir: string): string {
  return join(userDataDir, 'window-state.json')
}

/** Reads the saved state; null when missing or unreadable (a fresh default is fine). */
export function loadWindowState(file: string): SavedWindowState | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SavedWindowState
  } catch {
    return null
  }
}

/** Saves the state; errors are ignored (losing a window position is harmless). */
export function saveWindowState(file: string, state: SavedWindowState): void {
  try {
    writeFileSync(file, JSON.stringify(state))
  } catch {
    /* ignore */
  }
}
