/**
 * A channel factory whose library is loaded on first use. Baileys and what it pulls in (protobufs,
 * libsignal, the websocket stack) cost about 55 MB of RSS and a good part of the start time; a
 * sandbox-only or not-yet-linked app never needs them (docs/benchmarks.md "Start time and idle memory"). The session handed out at once
 * forwards every call to the real one, made when the library has loaded.
 */
import { ChannelError, type ChannelContext, type ChannelFactory, type ChannelKind, type ChannelSession } from './types'

/** A factory for `kind` that loads the real factory with `load()` the first time a session is used. */
export function lazyChannel(kind: ChannelKind, load: () => Promise<ChannelFactory>): ChannelFactory {
  let loading: Promise<ChannelFactory> | undefined
  const factory = () => (loading ??= load().catch((err: unknown) => {
    // A failed load (a broken install) is retried on the next use, not cached.
    loading = undefined
    throw err
  }))
  return (ctx: ChannelContext): ChannelSession => {
    let real: Promise<ChannelSession> | undefined
    const session = () =>
      (real ??= factory()
        .then((f) => f(ctx))
        .catch((err: unknown) => {
          real = undefined
          throw err
        }))
    return {
      kind,
      start: async () => (await session()).start(),
      stop: async () => (real ? (await real).stop() : undefined),
      logout: async () => (await session()).logout(),
      requestPairingCode: async (phone) => (await session()).requestPairingCode(phone),
      send: async (jid, content, options) => (await session()).send(jid, content, options),
      markRead: async (keys) => (await session()).markRead(keys),
      addToGroup: async (groupJid, participants) => (await session()).addToGroup(groupJid, participants),
      downloadMedia: async (messageId) => {
        const s = await session()
        if (!s.downloadMedia) throw new ChannelError('MEDIA_UNAVAILABLE', 'This channel cannot download media.')
        return s.downloadMedia(messageId)
      },
      resolveUsername: async (username) => {
        const s = await session()
        return s.resolveUsername ? s.resolveUsername(username) : undefined
      },
      react: async (target, emoji) => {
        const s = await session()
        if (!s.react) throw new ChannelError('SEND_FAILED', 'This channel cannot send reactions.')
        return s.react(target, emoji)
      },
      fetchHistory: async (anchor, count) => {
        const s = await session()
        if (!s.fetchHistory) throw new ChannelError('NOT_CONNECTED', 'This channel has no phone to ask for older messages.')
        return s.fetchHistory(anchor, count)
      }
    }
  }
}
