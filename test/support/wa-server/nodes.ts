/**
 * Binary-node helpers for the protocol test server (test code). Nodes are Baileys' own `BinaryNode`
 * (`{tag, attrs, content}`), encoded and decoded with the library's codec.
 */
import type { BinaryNode } from 'baileys'

export type { BinaryNode }

export const S_WHATSAPP_NET = 's.whatsapp.net'

/** Builds a node; `content` children or bytes. */
export function node(tag: string, attrs: Record<string, string | number | undefined> = {}, content?: BinaryNode[] | Uint8Array | string): BinaryNode {
  const clean: Record<string, string> = {}
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) clean[k] = String(v)
  return content === undefined ? { tag, attrs: clean } : { tag, attrs: clean, content }
}

export function children(n: BinaryNode | undefined, tag?: string): BinaryNode[] {
  if (!n || !Array.isArray(n.content)) return []
  return tag ? n.content.filter((c) => c.tag === tag) : n.content
}

export function child(n: BinaryNode | undefined, tag: string): BinaryNode | undefined {
  return children(n, tag)[0]
}

/** The bytes of a node's content (strings as UTF-8). */
export function bytes(n: BinaryNode | undefined): Buffer {
  const c = n?.content
  if (c instanceof Uint8Array) return Buffer.from(c)
  if (typeof c === 'string') return Buffer.from(c, 'utf8')
  return Buffer.alloc(0)
}

/** A big-endian unsigned integer of `length` bytes (registration ids, key ids). */
export function uintBE(value: number, length: number): Buffer {
  const out = Buffer.alloc(length)
  for (let i = length - 1; i >= 0; i--) {
    out[i] = value & 0xff
    value = Math.floor(value / 256)
  }
  return out
}

export function readUintBE(buf: Buffer): number {
  let v = 0
  for (const b of buf) v = v * 256 + b
  return v
}

/** An iq result answering `iq` (same id), with optional children. */
export function iqResult(iq: BinaryNode, content?: BinaryNode[]): BinaryNode {
  return node('iq', { from: iq.attrs.to ?? S_WHATSAPP_NET, type: 'result', id: iq.attrs.id }, content)
}

/** An iq error answering `iq` (same id): `<error code text/>`, as lib/WABinary/generic-utils.js assertNodeErrorFree reads it. */
export function iqError(iq: BinaryNode, code: number, text: string): BinaryNode {
  return node('iq', { from: iq.attrs.to ?? S_WHATSAPP_NET, type: 'error', id: iq.attrs.id }, [node('error', { code, text })])
}

/** `user` of a JID without device or agent: `123:4@s.whatsapp.net` → `123`. */
export function jidUser(jid: string): string {
  return jid.split('@')[0]!.split(':')[0]!.split('_')[0]!
}
