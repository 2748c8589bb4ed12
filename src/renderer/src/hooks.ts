/** React hooks over the contract: loading a method's result, and running actions with busy/error state. */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { ContractEvent, ContractInput, ContractMethod, ContractOutput } from '../../shared/contract'
import { call, onContractEvent } from './store'
import { latestOnly } from './latest-only'

export interface Loaded<T> {
  data: T | undefined
  error: unknown
  loading: boolean
  reload(): Promise<void>
}

/**
 * Loads `method(input)` and reloads when `key` changes or `reloadOn` returns true for an event.
 * `input` null = nothing to load (e.g. no instance selected).
 */
export function useContract<M extends ContractMethod>(
  method: M,
  input: ContractInput<M> | null,
  reloadOn?: (e: ContractEvent) => boolean
): Loaded<ContractOutput<M>> {
  const [data, setData] = useState<ContractOutput<M>>()
  const [error, setError] = useState<unknown>()
  const [loading, setLoading] = useState(true)
  const key = JSON.stringify(input)
  const reloadRef = useRef(reloadOn)
  reloadRef.current = reloadOn
  // Reloads overlap (two events in a row): only the latest one's answer is kept (./latest-only.ts).
  const latest = useRef(latestOnly())
  const reload = useCallback(async () => {
    const current = latest.current.begin()
    if (input === null) {
      setData(undefined)
      setLoading(false)
      return
    }
    setLoading(true)
    try {
      const answer = await call(method, input)
      if (!current()) return
      setData(answer)
      setError(undefined)
    } catch (err) {
      if (current()) setError(err)
    } finally {
      if (current()) setLoading(false)
    }
    // `key` stands for `input` (a new object each render); reloading on identity would loop.
  }, [method, key])
  useEffect(() => {
    void reload()
  }, [reload])
  useEffect(() => onContractEvent((e) => (e.type === 'resync' || reloadRef.current?.(e)) && void reload()), [reload])
  return { data, error, loading, reload }
}

/** Runs async actions with a busy flag and the last error (cleared on the next run). */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true)
    setError(undefined)
    try {
      return await fn()
    } catch (err) {
      setError(err)
      return undefined
    } finally {
      setBusy(false)
    }
  }, [])
  return { busy, error, setError, run }
}
