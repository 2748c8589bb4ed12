/**
 * The assistant's settings as rules (docs/assistant.md "Settings"): defaults for what an instance
 * never set, an update applied over the stored settings (the key write-only: omitted keeps it, ''
 * removes it), and the endpoint's address normalised to its `/v1` root. Pure; where the address may
 * point is ./endpoint-guard.ts's.
 */
import { DEFAULT_ASSISTANT, type AssistantSettings, type AssistantUpdate } from '../../shared/schemas/assistant'
import { invalid } from '../errors'
import type { KeyChange } from '../store/repos'

/** The stored settings with the defaults of what they lack (older rows, fields added later). */
export function assistantSettingsOf(stored: Partial<AssistantSettings> | null | undefined): AssistantSettings {
  return { ...DEFAULT_ASSISTANT, ...stored }
}

/**
 * `url` as the endpoint's root: trimmed, without a trailing `/` (the SDK appends `/chat/completions`).
 * '' stays '' (not set). Throws a 400 on `base_url` for anything but an http(s) URL without user
 * info, query or fragment: a key belongs in `api_key`, where it is never answered.
 */
export function normalizeBaseUrl(url: string): string {
  const trimmed = url.trim()
  if (trimmed === '') return ''
  let parsed: URL
  try {
    parsed = new URL(trimmed)
  } catch {
    throw invalid('base_url', 'must be a URL such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('base_url', 'must start with http:// or https://')
  if (parsed.username || parsed.password) throw invalid('base_url', 'must not carry a user or password: put the key in api_key, which is never shown again')
  if (parsed.search || parsed.hash) throw invalid('base_url', 'must be the endpoint’s /v1 root, without ? or #')
  return parsed.toString().replace(/\/+$/, '')
}

/**
 * The settings after `update` (only the fields it has), and what becomes of the key. Throws a 400
 * when the result is switched on without an endpoint or a model.
 */
export function applyAssistantUpdate(current: AssistantSettings, update: AssistantUpdate): { settings: AssistantSettings; key: KeyChange } {
  const { api_key, ...fields } = update
  const settings: AssistantSettings = { ...current, ...fields }
  if (fields.base_url !== undefined) settings.base_url = normalizeBaseUrl(fields.base_url)
  if (fields.model !== undefined) settings.model = fields.model.trim()
  if (fields.embedding_model !== undefined) settings.embedding_model = fields.embedding_model.trim()
  if (fields.transcription_model !== undefined) settings.transcription_model = fields.transcription_model.trim() || current.transcription_model
  if (settings.enabled && settings.base_url === '') throw invalid('base_url', 'is needed to switch the assistant on (the endpoint’s /v1 root)')
  if (settings.enabled && settings.model === '') throw invalid('model', 'is needed to switch the assistant on (the chat model’s name at the endpoint)')
  const key: KeyChange = api_key === undefined ? { keep: true } : { set: api_key.trim() === '' ? null : api_key.trim() }
  return { settings, key }
}

/** Whether the settings let the assistant answer at all (on, with an endpoint and a model). */
export function assistantReady(s: AssistantSettings): boolean {
  return s.enabled && s.base_url !== '' && s.model !== ''
}
