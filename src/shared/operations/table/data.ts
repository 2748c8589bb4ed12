/**
 * Operations on the data the desk keeps (issue 25): how long an instance keeps its history, and one
 * customer's data (export, erasure).
 */
import Type from 'typebox'
import { RetentionSettings, type RetentionSettings as RetentionSettingsT } from '../../schemas/records'
import { op } from '../define'
import { CustomerExport, ErasureResult, type CustomerExportT, type ErasureResultT } from '../results'
import { SETTINGS_UPDATED } from './common'

const CustomerNumber = Type.String({ minLength: 3, maxLength: 40, description: 'The customer’s phone number with its country code (any format), or their …@s.whatsapp.net JID.' })

export const DATA_OPERATIONS = {
  'settings.retention': op<RetentionSettingsT>()({
    summary: 'How long the instance keeps its messages and downloaded media',
    description:
      'Forever by default. `days`: messages older than this are deleted once a day (and their inbound media files); `media_days`: downloaded media files of messages older than this are deleted sooner (the message stays). null = keep.',
    tags: ['data'],
    scope: 'instance',
    input: Type.Partial(RetentionSettings),
    output: RetentionSettings,
    http: { method: 'PUT', path: '/chatapp/retention', message: SETTINGS_UPDATED },
    rpc: true
  }),
  'customers.export': op<CustomerExportT | { fileName: string; csv: string }, CustomerExportT>()({
    summary: 'Everything kept of one customer (format=csv: their messages as CSV)',
    description:
      'Their contact record, every message of their chats and what they wrote in groups (oldest first), and their survey answers — to give a customer their data, or to keep a copy before erasing it.',
    tags: ['data'],
    scope: 'instance',
    input: Type.Object({ number: CustomerNumber, format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])) }),
    output: CustomerExport,
    http: { method: 'GET', path: '/chatapp/customer/export', query: ['number', 'format'], message: 'Customer data exported successfully!', respond: 'csvWhenAsked', errors: { 400: 'Not a phone number' } },
    rpc: true
  }),
  'customers.exportCsv': op<{ fileName: string; csv: string }>()({
    summary: 'A customer’s messages as a CSV file',
    tags: ['data'],
    scope: 'instance',
    input: Type.Object({ number: CustomerNumber }),
    output: Type.Object({ fileName: Type.String(), csv: Type.String() }),
    rpc: true
  }),
  'customers.erase': op<ErasureResultT>()({
    summary: 'Erase one customer’s data',
    description:
      'Deletes their messages (their chats and what they wrote in groups), downloaded media, survey answers, contact record, inbox row, hand-off pause and queued webhooks that carry them, in one transaction. Cannot be undone (a backup made before still holds them): export first if they asked for a copy. The erasure is recorded (who, when, how many records), not what was erased.',
    tags: ['data'],
    scope: 'instance',
    input: Type.Object({ number: CustomerNumber }),
    output: ErasureResult,
    http: { method: 'DELETE', path: '/chatapp/customer', query: ['number'], message: 'Customer data erased', bodyOptional: true, errors: { 400: 'Not a phone number' } },
    rpc: true
  })
} as const
