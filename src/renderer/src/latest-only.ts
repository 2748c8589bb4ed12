/**
 * Of overlapping loads, only the latest counts: `begin()` marks a new load and answers a check that
 * stays true until another load begins. Two events in a row start two reloads whose answers may come
 * back in either order (the server reads on more than one thread); keeping the older answer showed a
 * stale list until the next event (hooks.ts `useContract`).
 */
export function latestOnly(): { begin(): () => boolean } {
  let n = 0
  return {
    begin() {
      const mine = ++n
      return () => mine === n
    }
  }
}
