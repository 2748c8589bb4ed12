/**
 * The fake phone's chat history (test code): what a phone holds of each chat, the history syncs it
 * sends its linked device, and its answer to an on-demand history request.
 *
 * - On-demand (Baileys rc14 lib/Socket/messages-recv.js `fetchMessageHistory`): the companion sends
 *   its own phone a peer data operation request (`protocolMessage.type =
 *   PEER_DATA_OPERATION_REQUEST_MESSAGE`, `peerDataOperationRequestType = HISTORY_SYNC_ON_DEMAND`,
 *   `historySyncOnDemandRequest {chatJid, oldestMsgId, oldestMsgFromMe, oldestMsgTimestampMs,
 *   onDemandMsgCount}`); the phone answers with a history-sync notification of type ON_DEMAND whose
 *   `peerDataRequestSessionId` is the request's message id (whatsmeow PR #1205, whatsapp-rust PR
 *   #614: WA Web correlates the answer by it), holding the chat's messages older than the anchor, at
 *   most 50 (WhatsApp's cap on one answer, automagik-dev/omni #1121).
 * - The notification carries the HistorySync inline (`initialHistBootstrapInlinePayload`, zlib
 *   deflated), which rc14 reads for any sync type (lib/Utils/history.js
 *   downloadAndProcessHistorySyncNotification). The live phone uploads larger ones as a blob the
 *   client downloads from `mmg.whatsapp.net` (the notification has a `directPath` but no URL,
 *   lib/Utils/messages-media.js getUrlFromDirectPath), a host a local server cannot stand in for;
 *   what the client does with the decoded HistorySync is the same.
 */
import { deflateSync } from 'node:zlib'
import { proto } from 'baileys'

/** The most messages one on-demand answer holds (WhatsApp's cap). */
export const ON_DEMAND_MAX = 50

/** One message the phone holds of a chat. */
export interface HeldMessage {
  id: string
  fromMe: boolean
  text: string
  /** Epoch ms. */
  at: number
  /** The sender's push name (contact messages). */
  pushName?: string
}

/** The request of `historySyncOnDemandRequest`, as the phone decrypted it. */
export interface OnDemandRequest {
  /** The request's message id (echoed as the answer's `peerDataRequestSessionId`). */
  requestId: string
  chatJid: string
  oldestMsgId: string
  oldestMsgFromMe: boolean
  /** Epoch ms. */
  oldestMsgTimestampMs: number
  count: number
}

/** The on-demand request in a decrypted own-device message, if it is one. */
export function onDemandRequestOf(message: proto.IMessage, requestId: string): OnDemandRequest | undefined {
  const pdo = message.protocolMessage?.peerDataOperationRequestMessage
  if (message.protocolMessage?.type !== proto.Message.ProtocolMessage.Type.PEER_DATA_OPERATION_REQUEST_MESSAGE) return undefined
  if (pdo?.peerDataOperationRequestType !== proto.Message.PeerDataOperationRequestType.HISTORY_SYNC_ON_DEMAND) return undefined
  const r = pdo.historySyncOnDemandRequest
  if (!r?.chatJid) return undefined
  return {
    requestId,
    chatJid: r.chatJid,
    oldestMsgId: r.oldestMsgId ?? '',
    oldestMsgFromMe: Boolean(r.oldestMsgFromMe),
    oldestMsgTimestampMs: Number(r.oldestMsgTimestampMs ?? 0),
    count: Number(r.onDemandMsgCount ?? 0)
  }
}

/** The messages an on-demand request gets: older than the anchor, the newest `min(count, 50)` of them, oldest first. */
export function answerOf(held: readonly HeldMessage[], req: OnDemandRequest): HeldMessage[] {
  const older = held.filter((m) => m.id !== req.oldestMsgId && m.at < req.oldestMsgTimestampMs).sort((a, b) => a.at - b.at)
  const n = Math.max(0, Math.min(req.count, ON_DEMAND_MAX))
  return n === 0 ? [] : older.slice(-n)
}

/**
 * A history-sync notification carrying `chats` inline: `syncType` ON_DEMAND (with the request id)
 * or RECENT. Each chat's messages as `WebMessageInfo` (key, timestamp in seconds, text, push name).
 */
export function historyNotification(
  syncType: proto.HistorySync.HistorySyncType,
  chats: Array<{ jid: string; messages: HeldMessage[] }>,
  requestId?: string
): proto.IMessage {
  const sync = proto.HistorySync.encode({
    syncType,
    progress: 100,
    conversations: chats.map(({ jid, messages }) => ({
      id: jid,
      // Newest first, as the phone lists a conversation.
      messages: [...messages]
        .sort((a, b) => b.at - a.at)
        .map((m) => ({
          message: {
            key: { remoteJid: jid, fromMe: m.fromMe, id: m.id },
            messageTimestamp: Math.floor(m.at / 1000),
            message: { conversation: m.text },
            ...(m.fromMe ? { status: proto.WebMessageInfo.Status.READ } : m.pushName ? { pushName: m.pushName } : {})
          }
        }))
    }))
  }).finish()
  return {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
      historySyncNotification: {
        syncType,
        chunkOrder: 0,
        progress: 100,
        initialHistBootstrapInlinePayload: deflateSync(sync),
        ...(requestId ? { peerDataRequestSessionId: requestId } : {})
      }
    }
  }
}
