/**
 * Pure: an example request body for an operation, derived from its JSON schema (docs/design.md §16 "OpenAPI"), so
 * /docs shows a body that "Try it out" can send as it is. Required fields always; optional ones at
 * the top level when they are plain values (a nested optional object would name records that do not
 * exist). Values come from the schema (`examples`, `default`, `const`, enums), else from the field's
 * name or format, kept within the schema's bounds. Credentials are left out: they go in the query.
 */

type Schema = {
  type?: string | string[]
  format?: string
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  oneOf?: Schema[]
  enum?: unknown[]
  const?: unknown
  examples?: unknown[]
  default?: unknown
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  pattern?: string
}

/** Sample values by field name (the seed's vocabulary), for strings without a format. */
const BY_NAME: Record<string, unknown> = {
  chatId: '15551234567',
  to: '15551234567',
  phone: '+15551234567',
  phoneNumber: '+15551234567',
  number: '15551234567',
  message: 'Hello from Chatapp Desk!',
  text: 'We are open every day from 12 to 23.',
  caption: 'Our menu',
  title: 'Opening hours',
  keyword: 'open,hours',
  reply: 'We are open every day from 12 to 23.',
  bot_name: 'Pizzeria Marco',
  name: 'Pizzeria Marco',
  default_msg: 'Thanks for writing! We will answer soon.',
  footer: 'Reply with a number',
  shortcut: 'hours',
  filename: 'menu.pdf',
  mimetype: 'application/pdf',
  lat: '45.4642',
  lng: '9.1900',
  loc: 'Via Roma 1, Milano',
  url: 'https://example.com/menu.pdf',
  fileurl: 'https://example.com/menu.pdf',
  q: 'pizza'
}

const BY_FORMAT: Record<string, string> = {
  email: 'owner@example.com',
  date: '2026-12-25',
  'date-time': '2026-11-20T10:00:00.000Z',
  'http-url': 'https://example.com/webhook',
  uri: 'https://example.com/webhook',
  timezone: 'Europe/Rome',
  'active-hours': '9:00',
  'language-tag': 'en',
  'decimal-degrees': '45.4642',
  shortcut: 'hours',
  binary: ''
}

const CREDENTIALS = new Set(['session_id', 'access_token'])

/** An example value of `schema` for the field `name` (undefined when none can be made). */
export function exampleOf(schema: Schema, name = ''): unknown {
  if (schema.examples?.length) return schema.examples[0]
  if (schema.default !== undefined) return schema.default
  if (schema.const !== undefined) return schema.const
  if (schema.enum?.length) return schema.enum[0]
  const branches = schema.anyOf ?? schema.oneOf
  if (branches) {
    for (const b of branches) {
      if (b.type === 'null') continue
      const v = exampleOf(b, name)
      if (v !== undefined) return v
    }
    return null
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  switch (type) {
    case 'object':
      return objectExample(schema, false)
    case 'array': {
      const item = schema.items ? exampleOf(schema.items, name) : undefined
      return item === undefined ? [] : [item]
    }
    case 'string':
      return stringExample(schema, name)
    case 'integer':
    case 'number': {
      const v = schema.minimum ?? (schema.maximum !== undefined ? Math.min(1, schema.maximum) : 1)
      return type === 'integer' ? Math.ceil(v) : v
    }
    case 'boolean':
      return true
    default:
      return undefined
  }
}

function stringExample(schema: Schema, name: string): string {
  let v = (schema.format && BY_FORMAT[schema.format]) ?? (typeof BY_NAME[name] === 'string' ? (BY_NAME[name]) : undefined)
  if (v === undefined && schema.pattern?.includes('\\d')) v = '15551234567'
  v ??= 'example'
  if (schema.minLength && v.length < schema.minLength) v = v.padEnd(schema.minLength, 'x')
  if (schema.maxLength !== undefined && v.length > schema.maxLength) v = v.slice(0, schema.maxLength)
  return v
}

function objectExample(schema: Schema, topLevel: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const required = new Set(schema.required ?? [])
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (CREDENTIALS.has(key)) continue
    if (!required.has(key) && !(topLevel && telling(prop, key))) continue
    const v = exampleOf(prop, key)
    if (v !== undefined) out[key] = v
  }
  return out
}

/**
 * Whether an optional field's example says something true: a plain value with a sample that works
 * as is (a flag, a number, an allowed value, a format or a known name), not a placeholder id.
 */
function telling(prop: Schema, key: string): boolean {
  if (prop.type === 'object' || prop.type === 'array' || prop.anyOf?.some((b) => b.type === 'object' || b.type === 'array')) return false
  if (prop.type === 'boolean' || prop.type === 'integer' || prop.type === 'number') return true
  return prop.examples !== undefined || prop.default !== undefined || prop.enum !== undefined || prop.const !== undefined || prop.anyOf !== undefined || (prop.format !== undefined && prop.format in BY_FORMAT) || key in BY_NAME
}

/** The example body of a request schema (an object): see the module doc. */
export function requestExample(body: Schema): Record<string, unknown> {
  return objectExample(body, true)
}
