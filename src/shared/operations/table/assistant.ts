/**
 * Operations of the assistant (docs/assistant.md): its settings (the endpoint's key write-only), the
 * dry run, its usage per day, and the shop's knowledge it answers from (CRUD, search, file import).
 * The owner and managers configure it (`bot:write`); agents see it (`inbox:read`).
 */
import Type from 'typebox'
import {
  AskBody,
  AskResult,
  AssistantUpdate,
  AssistantUsageDay,
  AssistantView,
  KnowledgeBody,
  KnowledgeEntry,
  KnowledgeListItem,
  type AskResult as AskResultT,
  type AssistantUsageDay as AssistantUsageDayT,
  type AssistantView as AssistantViewT,
  type KnowledgeEntry as KnowledgeEntryT,
  type KnowledgeListItem as KnowledgeListItemT
} from '../../schemas/assistant'
import { DeleteResult, type DeleteResult as DeleteResultT } from '../../schemas/operations'
import { op } from '../define'
import { deleted, Id, items, type PagedT } from './common'
import { UploadedFile } from './messages'

const NOT_FOUND = { 404: 'Unknown knowledge entry (or another instance’s)' }
/** The file kinds an import takes. */
const IMPORT_KINDS = '.txt, .md, .pdf, .docx or a question,answer .csv'

export const ASSISTANT_OPERATIONS = {
  /* ---------- the assistant ---------- */

  'assistant.get': op<AssistantViewT>()({
    summary: 'The assistant’s settings, today’s tokens and its circuit',
    description: 'The endpoint’s key is never answered: `api_key_set` says whether one is stored.',
    tags: ['assistant'],
    scope: 'instance',
    permission: 'inbox:read',
    input: Type.Object({}),
    output: AssistantView,
    http: { method: 'GET', path: '/chatapp/assistant', message: 'Assistant fetched successfully!', bodyOptional: true },
    rpc: true
  }),
  'assistant.update': op<AssistantViewT>()({
    summary: 'Change the assistant’s settings',
    description:
      'Any of the settings, and `api_key` (write-only: never answered, logged or sent anywhere but the endpoint; omitted keeps it, "" removes it). `base_url` is the endpoint’s /v1 root; loopback and LAN addresses are allowed (a model on this PC or the shop’s network), this app’s own API port is not.',
    tags: ['assistant'],
    scope: 'instance',
    permission: 'bot:write',
    input: AssistantUpdate,
    output: AssistantView,
    http: { method: 'PUT', path: '/chatapp/assistant', message: 'Assistant updated successfully!' },
    rpc: true
  }),
  'assistant.ask': op<AskResultT>()({
    summary: 'Ask the assistant as a customer would (a dry run: nothing is sent)',
    description:
      'Answers what a customer writing `text` would get (in chat `chat_id`, with its latest messages as history), the knowledge entries it drew on, the tokens and the model’s time. When the assistant cannot answer (a timeout, an error, the day’s tokens), `fallback` says why and `reply` is the fallback the customer would get. The tokens count towards the day.',
    tags: ['assistant'],
    scope: 'instance',
    permission: 'bot:write',
    input: AskBody,
    output: AskResult,
    http: { method: 'POST', path: '/chatapp/assistant/ask', message: 'Assistant answered successfully!' },
    rpc: true
  }),
  'assistant.usage': op<AssistantUsageDayT[]>()({
    summary: 'The assistant’s tokens and answers per day (bot_timezone)',
    tags: ['assistant'],
    scope: 'instance',
    permission: 'inbox:read',
    input: Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366, default: 30, description: 'Days back, today included.' })) }),
    output: Type.Array(AssistantUsageDay),
    http: { method: 'GET', path: '/chatapp/assistant/usage', message: 'Assistant usage fetched successfully!', query: ['days'], bodyOptional: true },
    rpc: true
  }),

  /* ---------- the shop's knowledge ---------- */

  'knowledge.create': op<KnowledgeEntryT>()({
    summary: 'Add a knowledge entry',
    description: 'Its content is cut into passages the assistant’s search finds (a Markdown heading starts a new one; `Q:`/`A:` pairs stay together).',
    tags: ['knowledge'],
    scope: 'instance',
    permission: 'bot:write',
    input: KnowledgeBody,
    output: KnowledgeEntry,
    http: { method: 'POST', path: '/chatapp/knowledge', message: 'Knowledge entry created successfully!', bodyLimit: 'file' },
    rpc: true
  }),
  'knowledge.list': op<PagedT<KnowledgeListItemT>, KnowledgeListItemT[]>()({
    summary: 'The knowledge entries, newest change first (q searches them)',
    description: '`q` finds the entries with a passage holding every word, any part of a word, any case or accents (terms of 3+ characters through the search index).',
    tags: ['knowledge'],
    scope: 'instance',
    permission: 'inbox:read',
    input: Type.Object({
      q: Type.Optional(Type.String({ maxLength: 200 })),
      offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 }))
    }),
    output: Type.Array(KnowledgeListItem),
    http: { method: 'GET', path: '/chatapp/knowledge', message: 'Knowledge fetched successfully!', query: ['q', 'offset', 'limit'], respond: 'paged', bodyOptional: true },
    rpc: { output: items }
  }),
  'knowledge.get': op<KnowledgeEntryT>()({
    summary: 'One knowledge entry with its content',
    tags: ['knowledge'],
    scope: 'instance',
    permission: 'inbox:read',
    input: Type.Object({ id: Id }),
    output: KnowledgeEntry,
    http: { method: 'GET', path: '/chatapp/knowledge/:knowledge_id', params: { knowledge_id: 'id' }, message: 'Knowledge entry fetched successfully!', errors: NOT_FOUND, bodyOptional: true },
    rpc: true
  }),
  'knowledge.update': op<KnowledgeEntryT>()({
    summary: 'Change a knowledge entry',
    tags: ['knowledge'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ id: Id, ...Type.Partial(KnowledgeBody).properties }),
    output: KnowledgeEntry,
    http: { method: 'PUT', path: '/chatapp/knowledge/:knowledge_id', params: { knowledge_id: 'id' }, message: 'Knowledge entry updated successfully!', errors: NOT_FOUND, bodyLimit: 'file' },
    rpc: true
  }),
  'knowledge.delete': op<void, DeleteResultT>()({
    summary: 'Delete a knowledge entry',
    tags: ['knowledge'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/chatapp/knowledge/:knowledge_id', params: { knowledge_id: 'id' }, message: 'Knowledge entry deleted successfully!', wire: deleted, errors: NOT_FOUND, bodyOptional: true },
    rpc: { output: deleted }
  }),
  'knowledge.importFile': op<KnowledgeEntryT>()({
    summary: `Import a file as a knowledge entry (${IMPORT_KINDS})`,
    description: 'Multipart `file` (up to 25 MB) and an optional `title` (default: the file’s name). A CSV’s first two columns (or those headed question and answer) become Q:/A: pairs. A scanned PDF without text is refused (400): run it through OCR first.',
    tags: ['knowledge'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ file: UploadedFile, title: Type.Optional(Type.String({ maxLength: 200 })) }),
    output: KnowledgeEntry,
    http: {
      method: 'POST',
      path: '/chatapp/knowledge/import',
      multipart: { file: 'required' },
      message: 'Knowledge entry imported successfully!',
      errors: { 413: 'File over 25 MB', 415: `Not ${IMPORT_KINDS}` }
    }
  }),
  'knowledge.import': op<KnowledgeEntryT>()({
    summary: `Import a file given as base64 as a knowledge entry (UI: both transports carry JSON; ${IMPORT_KINDS})`,
    tags: ['knowledge'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ filename: Type.String({ minLength: 1, maxLength: 255 }), dataBase64: Type.String(), title: Type.Optional(Type.String({ maxLength: 200 })) }),
    output: KnowledgeEntry,
    rpc: true
  })
}
