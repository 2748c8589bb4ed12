/** Downloads one customer's data as the core exports it (issue 25 §2): everything as JSON, or their messages as CSV. */
import { call } from '../store'
import { saveCsv, saveJson } from './files'

/** Saves `customer-<number>.json`: the contact record, every message of their chats, their survey answers. */
export async function downloadCustomerJson(instanceId: string, number: string): Promise<void> {
  const data = await call('customers.export', { instanceId, number })
  saveJson(`customer-${data.number}.json`, data)
}

/** Saves their messages as the core's CSV (one row per message, oldest first). */
export async function downloadCustomerCsv(instanceId: string, number: string): Promise<void> {
  const { fileName, csv } = await call('customers.exportCsv', { instanceId, number })
  saveCsv(fileName, csv)
}
