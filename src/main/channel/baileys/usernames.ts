/**
 * WhatsApp usernames (rolled out in 2026; docs/baileys.md "Usernames"): a customer who has a username
 * and hides the number reaches a linked device as a LID only. Baileys 7.0.0-rc14 puts a username the
 * stanza names on the key (`remoteJidUsername` / `participantUsername`, lib/Utils/decode-wa-message.js)
 * and offers the USync protocols to look one up (lib/WAUSync): `username` answers a LID's username
 * (USyncUsernameProtocol), and a `<contact username>` query with the `lid` protocol finds the LID of
 * a username (USyncContactProtocol, UsyncLIDProtocol). This module asks the server through the
 * socket's `executeUSyncQuery`, each answer cached (a missing one for less long), each query bounded
 * by a timeout so a silent server never holds up the inbound queue.
 */
import { USyncQuery, USyncUser } from 'baileys'
import { boundedLru } from '../../lru'
import { withTimeout, type Timers } from './timers'

/** What the lookups need of the socket (lib/Socket/socket.js executeUSyncQuery). */
export interface UsyncSocket {
  executeUSyncQuery(query: USyncQuery): Promise<{ list: ReadonlyArray<AnswerUser> } | undefined>
}

/** One user of an answer, with what its protocols parsed (USyncQueryResultList: `username`, `contact`, `lid`). */
export interface AnswerUser {
  id: string
  username?: unknown
  contact?: unknown
  lid?: unknown
}

export interface UsernameLookupOptions {
  timers: Timers
  /** Milliseconds one query may take. */
  timeoutMs?: number
  /** How long a "none" answer is kept (an answer: an hour). */
  missTtlMs?: number
}

export class UsernameLookup {
  /** Answers by LID and by username; '' is "none" (kept for less long). */
  private readonly names = boundedLru<string, string>(5000, { ttl: 60 * 60_000 })
  private readonly lids = boundedLru<string, string>(5000, { ttl: 60 * 60_000 })

  constructor(private readonly opts: UsernameLookupOptions) {}

  /** The username of the LID `lid` (`…@lid`), or undefined when it has none or the server does not say. */
  async usernameOfLid(sock: UsyncSocket, lid: string): Promise<string | undefined> {
    if (this.names.has(lid)) return this.names.get(lid) || undefined
    const query = new USyncQuery().withContext('interactive').withUsernameProtocol().withUser(new USyncUser().withId(lid))
    const result = await this.ask(sock, query)
    if (result === 'failed') return undefined
    const found = result?.list.find((u) => u.id === lid)?.username
    const name = typeof found === 'string' ? found : ''
    this.names.set(lid, name, name ? undefined : { ttl: this.opts.missTtlMs ?? 10 * 60_000 })
    return name || undefined
  }

  /** The LID (`…@lid`) of the account with `username` (no "@"), or undefined when none is on WhatsApp. */
  async lidOfUsername(sock: UsyncSocket, username: string): Promise<string | undefined> {
    if (this.lids.has(username)) return this.lids.get(username) || undefined
    const query = new USyncQuery().withContext('interactive').withContactProtocol().withLIDProtocol().withUser(new USyncUser().withUsername(username))
    const result = await this.ask(sock, query)
    if (result === 'failed') return undefined
    const user = result?.list.find((u) => u.contact === true)
    const lid = typeof user?.lid === 'string' && user.lid.endsWith('@lid') ? user.lid : user?.id?.endsWith('@lid') ? user.id : ''
    this.lids.set(username, lid, lid ? undefined : { ttl: this.opts.missTtlMs ?? 10 * 60_000 })
    if (lid) this.names.set(lid, username)
    return lid || undefined
  }

  /** Forgets every answer (a logout). */
  clear(): void {
    this.names.clear()
    this.lids.clear()
  }

  private async ask(sock: UsyncSocket, query: USyncQuery): Promise<Awaited<ReturnType<UsyncSocket['executeUSyncQuery']>> | 'failed'> {
    type Answer = Awaited<ReturnType<UsyncSocket['executeUSyncQuery']>> | 'failed'
    try {
      return await withTimeout<Answer>(this.opts.timers, sock.executeUSyncQuery(query), this.opts.timeoutMs ?? 5000, () => 'failed')
    } catch {
      return 'failed'
    }
  }
}
