/**
 * The unsaved-changes guard: settings forms say when they hold changes not saved; leaving
 * the tab or the page then asks first.
 */
const dirty = new Set<string>()

/** Records whether the form `key` (its title) has unsaved changes. */
export function markDirty(key: string, isDirty: boolean): void {
  if (isDirty) dirty.add(key)
  else dirty.delete(key)
}

/** Forgets every unsaved change (the data under the forms was replaced, e.g. by a restore, and the page reloads). */
export function clearUnsaved(): void {
  dirty.clear()
}

/** True when nothing is unsaved, or the owner chose to leave anyway (the changes are dropped). */
export function confirmLeave(): boolean {
  if (dirty.size === 0) return true
  const ok = window.confirm(`You have unsaved changes in ${[...dirty].join(', ')}. Leave without saving?`)
  if (ok) dirty.clear()
  return ok
}

if (typeof window !== 'undefined') {
  window.addEventListener('beforeunload', (e) => {
    if (dirty.size > 0) e.preventDefault()
  })
}
