/**
 * Checks the configuration document read from disk against the record schemas
 * (src/shared/schemas/records/), so a damaged or hand-edited file stops the start with a message
 * naming the record and the field, instead of failing somewhere later. Unknown extra fields are
 * allowed (a newer or older version's).
 */
import { makeAjv } from '../../validation'
import { Instance } from '../../../shared/schemas/records'
import type { ConfigData } from './config-data'

const ajv = makeAjv(false)
const validInstance = ajv.compile(Instance)

/** `data` as a configuration document; throws `instances[i] (_id …): <field> <problem>` on the first bad part. */
export function checkConfig(data: unknown): ConfigData {
  if (!data || typeof data !== 'object') throw new Error('the document must be a JSON object')
  const d = data as Partial<ConfigData>
  if (d.version !== 1) throw new Error(`unknown document version ${String(d.version)} (this release reads version 1)`)
  if (!Array.isArray(d.instances)) throw new Error('instances must be a list')
  for (const [i, r] of d.instances.entries()) checkInstance(r, `instances[${i}]`)
  if (d.account !== null && (typeof d.account !== 'object' || typeof d.account?.api_token !== 'string')) throw new Error('account must be null or have an api_token')
  if (!d.appSettings || typeof d.appSettings !== 'object') throw new Error('appSettings must be an object')
  return d as ConfigData
}

/** `r` as an instance record; throws `<where> (_id …): <field> <problem>` when it is not one. */
export function checkInstance(r: unknown, where: string): Instance {
  if (validInstance(r)) return r
  const e = validInstance.errors?.[0]
  const field = e?.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(record)'
  const id = r && typeof r === 'object' && '_id' in r ? ` (_id ${String(r._id)})` : ''
  throw new Error(`${where}${id}: ${field} ${e?.message ?? 'is invalid'}`)
}
