/**
 * The Contacts screen's list (docs/ui.md "The long history"): searched and filtered on the server (`contacts.list` with
 * `q`, `group_id`, `label`), a page at a time by `offset`; reloaded, as far as it was read, when the
 * instance's contacts change.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { Contact } from '../../../../shared/schemas/records'
import { call, onContractEvent } from '../../store'

/** Contacts per page. */
export const CONTACTS_PAGE = 50

export interface ContactFilter {
  q: string
  groupId: string | null
  label: string | null
}

export interface ContactPages {
  contacts: Contact[]
  /** More contacts match than are loaded. */
  hasMore: boolean
  /** How many contacts match in all (null before the first answer). */
  total: number | null
  loading: boolean
  error: unknown
  more(): Promise<void>
  reload(): Promise<void>
}

/** A page of the matches from `offset`, and how many match in all. */
async function fetchPage(instanceId: string, f: ContactFilter, offset: number, limit: number): Promise<{ items: Contact[]; total: number }> {
  const q = f.q.trim()
  return call('contacts.list', { instanceId, offset, limit, ...(q ? { q } : {}), ...(f.groupId ? { group_id: f.groupId } : {}), ...(f.label ? { label: f.label } : {}) })
}

export function useContactPages(instanceId: string | undefined, filter: ContactFilter): ContactPages {
  const [contacts, setContacts] = useState<Contact[]>([])
  const [total, setTotal] = useState<number | null>(null)
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState<unknown>()
  const generation = useRef(0)
  const loaded = useRef(0)
  loaded.current = contacts.length
  const key = JSON.stringify(filter)

  /** Loads the first `count` matches afresh (a new filter, or a change while `count` were shown). */
  const load = useCallback(
    async (count: number) => {
      if (!instanceId) return
      const g = ++generation.current
      setLoading(true)
      try {
        const page = await fetchPage(instanceId, filter, 0, Math.min(Math.max(count, CONTACTS_PAGE), 999))
        if (g !== generation.current) return
        setContacts(page.items)
        setTotal(page.total)
        setError(undefined)
      } catch (err) {
        if (g === generation.current) setError(err)
      } finally {
        if (g === generation.current) setLoading(false)
      }
    },
    // `key` stands for `filter` (a new object each render).
    [instanceId, key]
  )

  useEffect(() => {
    void load(CONTACTS_PAGE)
  }, [load])

  useEffect(
    () => onContractEvent((e) => (e.type === 'resync' || (e.type === 'changed' && e.instanceId === instanceId && e.what === 'contacts')) && void load(loaded.current)),
    [load, instanceId]
  )

  const more = useCallback(async () => {
    if (!instanceId) return
    const g = generation.current
    setLoading(true)
    try {
      const page = await fetchPage(instanceId, filter, loaded.current, CONTACTS_PAGE)
      if (g !== generation.current) return
      setContacts((cur) => [...cur, ...page.items])
      setTotal(page.total)
    } catch (err) {
      if (g === generation.current) setError(err)
    } finally {
      if (g === generation.current) setLoading(false)
    }
  }, [instanceId, key])

  return { contacts, hasMore: total !== null && contacts.length < total, total, loading, error, more, reload: () => load(loaded.current) }
}
