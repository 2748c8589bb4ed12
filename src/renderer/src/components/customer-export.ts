/** Downloads one customer's data as the core exports it (docs/ui.md "The long history"): everything as JSON, or their messages as CSV. */
import { call } from '../store'
import { saveCsv, saveJson } from './files'

/**
 * `number`: a number, a LID or "@username" (the core finds their chat). Saves `customer-<number>.json`: the contact record, every message of their chats, their survey
 * answers — of the instance, or (`all`) of every instance this person may reach.
 */
export async function downloadCustomerJson(instanceId: string, number: string, all = false): Promise<void> {
  const data = await call('customers.export', { instanceId, number, ...(all ? { type: 'all' as const } : {}) })
  saveJson(`customer-${data.username ?? data.number.replace(/@lid$/, '')}.json`, data)
}

/** Saves their messages as the core's CSV (one row per message, oldest first; with `all`, of every instance). */
export async function downloadCustomerCsv(instanceId: string, number: string, all = false): Promise<void> {
  const { fileName, csv } = await call('customers.exportCsv', { instanceId, number, ...(all ? { type: 'all' as const } : {}) })
  saveCsv(fileName, csv)
}
