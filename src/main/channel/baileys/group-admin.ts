/**
 * Adding people to a WhatsApp group (the `add_to_group` action): the instance must be an admin
 * (docs/design.md §10). Reads the group fresh (and refreshes the metadata cache with it), then
 * `groupParticipantsUpdate(…, 'add')` (lib/Socket/groups.js): each result's status is '200' on
 * success, else the server's code (403 with `add_request`: the person's privacy blocks adds).
 */
import type { Contact, GroupMetadata } from 'baileys'
import { toGroupJid, toJid } from '../jid'
import { ChannelError, type GroupAddResult } from '../types'
import { errorMessage, isForbidden } from './baileys-errors'
import type { GroupMetadataCache } from './group-metadata-cache'
import { stripDevice } from './inbound-mapper'
import type { BaileysSocket } from './socket'

/** True when `me` (any of its JIDs: PN, LID) is an admin of the group. */
export function isAdminOf(meta: GroupMetadata, me: Contact): boolean {
  const mine = new Set([me.id, me.lid, me.phoneNumber].filter((j): j is string => Boolean(j)).map(stripDevice))
  return meta.participants.some((p) => {
    const ids = [p.id, p.lid, p.phoneNumber].filter((j): j is string => Boolean(j)).map(stripDevice)
    if (!ids.some((j) => mine.has(j))) return false
    return p.admin === 'admin' || p.admin === 'superadmin' || Boolean(p.isAdmin || p.isSuperAdmin)
  })
}

/**
 * Adds `participants` (numbers or JIDs) to `groupJid`. Throws {@link ChannelError} NOT_GROUP_ADMIN
 * when the instance is not a member or not an admin, SEND_FAILED on bad ids or other failures.
 */
export async function addToGroup(sock: BaileysSocket, cache: GroupMetadataCache, groupJid: string, participants: string[]): Promise<GroupAddResult[]> {
  const gid = toGroupJid(groupJid)
  if (!gid) throw new ChannelError('SEND_FAILED', `Not a group id: ${groupJid}`)
  const jids = participants.map((p) => {
    const j = toJid(p)
    if (!j) throw new ChannelError('SEND_FAILED', `Not a phone number or JID: ${p}`)
    return j
  })
  const me = sock.user
  let meta: GroupMetadata
  try {
    meta = await sock.groupMetadata(gid)
    cache.set(meta)
  } catch (err) {
    if (isForbidden(err)) throw new ChannelError('NOT_GROUP_ADMIN', `The bot is not a member of ${gid}, so it cannot add people to it.`)
    throw new ChannelError('SEND_FAILED', `Could not read the group ${gid}: ${errorMessage(err)}`)
  }
  if (!me || !isAdminOf(meta, me)) throw new ChannelError('NOT_GROUP_ADMIN', `The bot is not an admin of ${gid}; make it an admin to add people.`)
  try {
    const res = await sock.groupParticipantsUpdate(gid, jids, 'add')
    return res.map((r, i) => ({ jid: r.jid ?? jids[i] ?? '', status: String(r.status) }))
  } catch (err) {
    if (isForbidden(err)) throw new ChannelError('NOT_GROUP_ADMIN', `The bot is not an admin of ${gid}; make it an admin to add people.`)
    throw new ChannelError('SEND_FAILED', `Could not add to ${gid}: ${errorMessage(err)}`)
  }
}
