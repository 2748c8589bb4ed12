/**
 * The file of an inbound media message, downloaded on demand from WhatsApp's media host with the keys
 * kept in the message store (in the database, so it works after a restart). An expired media URL is
 * refreshed through the phone (`updateMediaMessage`) when connected.
 */
import { downloadMediaMessage } from 'baileys'
import type { Logger } from '../../logger'
import { ChannelError, type DownloadedMedia } from '../types'
import { errorMessage } from './baileys-errors'
import { toInboundMessage } from './inbound-mapper'
import type { MessageStore } from './message-store'
import type { BaileysSocket } from './socket'

/** Throws {@link ChannelError} MEDIA_UNAVAILABLE when unknown, without media, or the download fails. */
export async function downloadInboundMedia(store: MessageStore, messageId: string, sock: BaileysSocket | undefined, logger: Logger): Promise<DownloadedMedia> {
  const msg = await store.lookup(messageId)
  const inbound = msg ? toInboundMessage(msg, { offline: false, nowSeconds: 0 }) : null
  if (!msg || !inbound?.media) throw new ChannelError('MEDIA_UNAVAILABLE', `No recent message ${messageId} with media.`)
  try {
    const data = await downloadMediaMessage(msg, 'buffer', {}, {
      logger,
      reuploadRequest: (m) => (sock ? sock.updateMediaMessage(m) : Promise.reject(new Error('not connected')))
    })
    return { data, mimetype: inbound.media.mimetype, ...(inbound.media.fileName ? { fileName: inbound.media.fileName } : {}) }
  } catch (err) {
    throw new ChannelError('MEDIA_UNAVAILABLE', `Could not download the media of ${messageId}: ${errorMessage(err)}`)
  }
}
