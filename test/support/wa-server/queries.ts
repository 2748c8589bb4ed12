/**
 * How the protocol test server answers the client's queries (test code). Each answer is what the
 * client parses in node_modules/baileys/lib:
 * - `encrypt` `<count>` → `<count value>` (Socket/socket.js getAvailablePreKeysOnServer); a pre-key
 *   upload (`<list>`, `<skey>`) → empty result, the keys added to those held for peers that write first;
 *   `<digest>` → a `<digest>` child (digestKeyBundle); `<key><user jid/>` → a bundle per user
 *   (Utils/signal.js parseAndInjectE2ESessions);
 * - `usync` → per user a device list and `<lid val>` (WAUSync/Protocols: devices, lid): v7 maps
 *   phone-number JIDs to LIDs before fetching pre-keys and drops users without a mapping; a contact's
 *   `<username>` (protocol `username`); a lookup by `<contact username>` answers that contact's LID;
 * - `w:g2` (groups) → {@link Directory.groupIq} (groups.ts), else an empty result;
 * - `md` `<remove-companion-device>` (logout) → result; the client then ends with 401;
 * - `w:m` `<media_conn/>` → `<media_conn auth ttl><host hostname/></media_conn>` naming the fake media host
 *   (Socket/messages-send.js refreshMediaConn reads `auth`, `ttl` and each host's `hostname`, which
 *   may carry a port; uploads then go to `https://<hostname>/mms/…`, see media-host.ts);
 * - `privacy` set `<tokens>` (the client issues its privacy token to a contact) → an empty result;
 *   `privacy` get → `<privacy>` with the account's categories (`readreceipts`, `last`, `online`, …; Socket/chats.js
 *   fetchPrivacySettings reduces them to `{name: value}`);
 * - `blocklist`, `abt` → their empty containers; anything else → an empty result.
 */
import type { BinaryNode } from 'baileys'
import { child, children, iqResult, jidUser, node } from './nodes'
import { parseKeyUpload, type SignalPeer, type UploadedKeys } from './peer'

/** What the answers need from the server: who exists, and where uploads go. */
export interface Directory {
  /** The peer (phone or contact) behind a JID's user, PN or LID. */
  peerFor(jid: string): { peer: SignalPeer; pn: string; lid: string; lidHidden?: boolean; username?: string } | undefined
  /** The contact whose WhatsApp username is `username` (without "@"), if any. */
  byUsername?(username: string): { pn: string; lid: string } | undefined
  onKeyUpload(keys: UploadedKeys): void
  onLogout(): void
  uploadedPreKeyCount(): number
  /** The answer to a `w:g2` (groups) query, if the server models it (groups.ts answerGroupIq). */
  groupIq?(iq: BinaryNode): BinaryNode | undefined
  /** The account's privacy settings by category (e.g. `readreceipts: 'all'`). */
  privacy(): Record<string, string>
  /** The media host to announce in `media_conn` (absent: an empty result, as before). */
  mediaConn?(): { auth: string; ttlSeconds: number; hostname: string }
}

/** The answer to an iq, or undefined when it is not a query (type result/error). */
export function answerIq(iq: BinaryNode, dir: Directory): BinaryNode | undefined {
  const type = iq.attrs.type
  if (type !== 'get' && type !== 'set') return undefined
  const xmlns = iq.attrs.xmlns
  if (xmlns === 'encrypt') {
    if (child(iq, 'count')) return iqResult(iq, [node('count', { value: dir.uploadedPreKeyCount() })])
    if (child(iq, 'list') && child(iq, 'skey')) {
      dir.onKeyUpload(parseKeyUpload(iq))
      return iqResult(iq)
    }
    if (child(iq, 'digest')) return iqResult(iq, [node('digest', {})])
    const key = child(iq, 'key')
    if (key) {
      const users = children(key, 'user').flatMap((u) => {
        const jid = u.attrs.jid ?? ''
        const found = dir.peerFor(jid)
        return found ? [found.peer.bundleNode(jid)] : [node('user', { jid }, [node('error', { code: '404', text: 'item-not-found' })])]
      })
      return iqResult(iq, [node('list', {}, users)])
    }
    return iqResult(iq)
  }
  if (xmlns === 'w:g2') return dir.groupIq?.(iq) ?? iqResult(iq)
  if (xmlns === 'usync') return iqResult(iq, [usyncAnswer(iq, dir)])
  if (xmlns === 'md' && child(iq, 'remove-companion-device')) {
    dir.onLogout()
    return iqResult(iq)
  }
  if (xmlns === 'w:m' && child(iq, 'media_conn') && dir.mediaConn) {
    const m = dir.mediaConn()
    return iqResult(iq, [node('media_conn', { auth: m.auth, ttl: m.ttlSeconds }, [node('host', { hostname: m.hostname, maxContentLengthBytes: 104857600 })])])
  }
  // The client issues its privacy token to a contact (lib/Socket/messages-send.js issuePrivacyTokens):
  // an empty result. What the live service answers is not documented; whatsmeow ignores the answer
  // (tctoken.go issuePrivacyTokenAndSave), and a token the client stored from it would be one no
  // contact issued.
  if (xmlns === 'privacy' && type === 'set' && child(iq, 'tokens')) return iqResult(iq)
  if (xmlns === 'privacy') {
    const categories = Object.entries(dir.privacy()).map(([name, value]) => node('category', { name, value }))
    return iqResult(iq, [node('privacy', {}, categories)])
  }
  if (xmlns === 'blocklist') return iqResult(iq, [node('list', {}, [])])
  if (xmlns === 'abt') return iqResult(iq, [node('props', { protocol: '1' }, [])])
  return iqResult(iq)
}

function usyncAnswer(iq: BinaryNode, dir: Directory): BinaryNode {
  const usync = child(iq, 'usync')
  const wanted = new Set(children(child(usync, 'query')).map((q) => q.tag))
  const users = children(child(usync, 'list'), 'user').map((u) => {
    // onWhatsApp asks by phone number: `<user><contact>+1555…</contact></user>` (WAUSync/Protocols/USyncContactProtocol.js).
    const phone = child(u, 'contact')?.content
    // A username lookup: `<user><contact username="…"/></user>` (USyncContactProtocol.js getUserElement) names no JID.
    const username = child(u, 'contact')?.attrs.username?.replace(/^@/, '').toLowerCase()
    const byName = username ? dir.byUsername?.(username) : undefined
    const jid = byName ? `${byName.lid}@lid` : (u.attrs.jid ?? (phone ? `${String(Buffer.isBuffer(phone) || phone instanceof Uint8Array ? Buffer.from(phone).toString('utf8') : phone).replace(/\D/g, '')}@s.whatsapp.net` : ''))
    const found = username && !byName ? undefined : dir.peerFor(jid)
    const content: BinaryNode[] = []
    if (wanted.has('devices')) {
      const devices = found ? [node('device', { id: 0 })] : []
      content.push(node('devices', {}, [node('device-list', {}, devices), node('key-index-list', { ts: Math.floor(Date.now() / 1000) })]))
    }
    // A number whose LID the service does not hand out (before the LID rollout reached it): no `<lid>`.
    if (wanted.has('lid') && found && !found.lidHidden && !jid.endsWith('@lid')) content.push(node('lid', { val: `${found.lid}@lid` }))
    if (wanted.has('contact')) content.push(node('contact', { type: found ? 'in' : 'out' }))
    // A LID's username (USyncUsernameProtocol.js: the node's text), for a contact that has one.
    if (wanted.has('username') && found?.username) content.push(node('username', {}, found.username))
    return node('user', { jid: jid.includes('@') ? jid : `${jidUser(jid)}@s.whatsapp.net` }, content)
  })
  return node('usync', { sid: usync?.attrs.sid, mode: usync?.attrs.mode, context: usync?.attrs.context, last: 'true', index: '0' }, [
    node('result', {}, []),
    node('list', {}, users)
  ])
}
