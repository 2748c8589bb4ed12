/**
 * Instance credentials of a request (DESIGN.md §3): `session_id` and `access_token` from the query
 * string or the JSON body (or multipart fields), whichever carries them.
 */
import type { FastifyRequest } from 'fastify'
import type { Instance } from '../../shared/schemas/records'

type Bag = Record<string, unknown> | undefined | null

function pick(name: string, ...bags: Bag[]): unknown {
  for (const bag of bags) {
    if (bag && typeof bag === 'object' && bag[name] !== undefined) return bag[name]
  }
  return undefined
}

/** The authenticated instance; 400 for missing credentials, 401 for wrong ones. */
export function requestInstance(req: FastifyRequest, extra?: Bag): Instance {
  const query = req.query as Bag
  const body = (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : undefined) as Bag
  return req.server.core.instances.authenticate(pick('session_id', query, body, extra), pick('access_token', query, body, extra))
}
