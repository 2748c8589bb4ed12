/**
 * One schema per API operation (docs/api-seed.md §4, docs/design.md §3–§9): request bodies, query strings and the
 * `data` of each answer. The HTTP layer validates with them, the services take their `Static` types,
 * and the OpenAPI document is generated from them.
 *
 * Instance credentials (`session_id`, `access_token`) may come in the query string or the JSON body of
 * any instance-scoped operation, so both places declare them optional; the route layer requires one.
 */
import Type, { type Static } from 'typebox'
import { Action, ActiveHours, RequestConfig, WEBHOOK_EVENT_INFO, WEBHOOK_EVENTS } from './records'

/** Instance credentials as body members or query parameters. */
export const Credentials = {
  session_id: Type.Optional(Type.String({ description: 'Instance session id (or in the query string).' })),
  access_token: Type.Optional(Type.String({ description: 'Instance access token (or in the query string).' }))
}

/* ---------- intents (docs/api-seed.md §4.2) ---------- */

export const CreateIntentBody = Type.Object({
  ...Credentials,
  title: Type.String({ minLength: 1, maxLength: 200 }),
  keyword: Type.String({ minLength: 1, maxLength: 4000, description: 'Comma-separated trigger words.' }),
  reply: Type.String({ maxLength: 4096 }),
  action: Type.Optional(Action)
})
export type CreateIntentBody = Static<typeof CreateIntentBody>

export const UpdateIntentBody = Type.Object({
  ...Credentials,
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 4000 })),
  reply: Type.Optional(Type.String({ maxLength: 4096 })),
  action: Type.Optional(Type.Union([Action, Type.Null()], { description: 'null removes the actions.' }))
})
export type UpdateIntentBody = Static<typeof UpdateIntentBody>

/* ---------- surveys (docs/api-seed.md §4.1, docs/design.md §9) ---------- */

const SortId = Type.Union([Type.Integer(), Type.String({ pattern: '^\\s*-?\\d+\\s*$' })], {
  description: 'Step order; the update form may send it as a numeric string.'
})

export const CreateSurveyBody = Type.Object({
  ...Credentials,
  title: Type.String({ minLength: 1, maxLength: 200 }),
  keyword: Type.String({ maxLength: 4000 }),
  reply: Type.String({ minLength: 1, maxLength: 4096 }),
  sort_id: SortId,
  action: Type.Optional(Action),
  closing_msg: Type.Optional(Type.String({ maxLength: 4096, description: 'Sent when a run completes. [name], [answer:N].' }))
})
export type CreateSurveyBody = Static<typeof CreateSurveyBody>

export const UpdateSurveyBody = Type.Object({
  ...Credentials,
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  keyword: Type.Optional(Type.String({ maxLength: 4000 })),
  reply: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  sort_id: Type.Optional(SortId),
  action: Type.Optional(Type.Union([Action, Type.Null()])),
  closing_msg: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], { description: 'null or "" removes it.' }))
})
export type UpdateSurveyBody = Static<typeof UpdateSurveyBody>

/* ---------- instances (docs/api-seed.md §4.4, docs/design.md §5) ---------- */

export const InitBody = Type.Object({
  ...Credentials,
  config: Type.Optional(
    Type.Object({
      multiDevice: Type.Optional(Type.Boolean()),
      setWebhook: Type.Optional(Type.Boolean()),
      webhookUrl: Type.Optional(Type.String({ format: 'http-url' }))
    })
  )
})
export type InitBody = Static<typeof InitBody>

export const PairingCodeBody = Type.Object({
  ...Credentials,
  phone: Type.String({ pattern: '^\\+?[\\d\\s\\-.()]{6,32}$', description: 'Phone number of the account to link.' })
})
export type PairingCodeBody = Static<typeof PairingCodeBody>

/* ---------- instance settings (docs/api-seed.md §4.3) ---------- */

export const UpdateGeneralBody = Type.Object({
  ...Credentials,
  bot_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  bot_timezone: Type.Optional(Type.String({ format: 'timezone' })),
  bot_lang: Type.Optional(Type.String({ format: 'language-tag' })),
  default_msg: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Boolean()], {
      description: 'A string sets the template; a boolean switches actions.send_default_msg.'
    })
  )
})
export type UpdateGeneralBody = Static<typeof UpdateGeneralBody>

export const UpdateActionsBody = Type.Object({
  ...Credentials,
  send_default_msg: Type.Optional(Type.Boolean()),
  reply_group_msgs: Type.Optional(Type.Boolean()),
  reply_unread_msgs: Type.Optional(Type.Boolean()),
  reply_msgs: Type.Optional(Type.Boolean()),
  multi_device: Type.Optional(Type.Boolean()),
  send_webhook: Type.Optional(Type.Boolean())
})
export type UpdateActionsBody = Static<typeof UpdateActionsBody>

export const UpdateActiveDaysBody = Type.Object({
  ...Credentials,
  monday: Type.Optional(Type.Boolean()),
  tuesday: Type.Optional(Type.Boolean()),
  wednesday: Type.Optional(Type.Boolean()),
  thursday: Type.Optional(Type.Boolean()),
  friday: Type.Optional(Type.Boolean()),
  saturday: Type.Optional(Type.Boolean()),
  sunday: Type.Optional(Type.Boolean())
})
export type UpdateActiveDaysBody = Static<typeof UpdateActiveDaysBody>

export const UpdateActiveHoursBody = Type.Object({ ...Credentials, ...ActiveHours.properties })
export type UpdateActiveHoursBody = Static<typeof UpdateActiveHoursBody>

export const SetWebhookBody = Type.Object({
  ...Credentials,
  webhook_url: Type.String({ format: 'http-url' }),
  events: Type.Array(Type.Enum(WEBHOOK_EVENTS), {
    uniqueItems: true,
    description: WEBHOOK_EVENTS.map((e) => `${e}: ${WEBHOOK_EVENT_INFO[e]}`).join('; ') + '.'
  }),
  requestConfig: Type.Optional(RequestConfig)
})
export type SetWebhookBody = Static<typeof SetWebhookBody>

/** data of every settings update (docs/api-seed.md §2.9). */
export const UpdateResult = Type.Object({
  acknowledged: Type.Boolean(),
  modifiedCount: Type.Integer(),
  upsertedId: Type.Null(),
  upsertedCount: Type.Integer(),
  matchedCount: Type.Integer()
})
export type UpdateResult = Static<typeof UpdateResult>

/** data of deletes (docs/api-seed.md §2.10). */
export const DeleteResult = Type.Object({ n: Type.Integer(), ok: Type.Integer(), deletedCount: Type.Integer() })
export type DeleteResult = Static<typeof DeleteResult>

/* ---------- sending (docs/api-seed.md §4.5) ---------- */

const ChatId = Type.String({ minLength: 1, description: 'Phone number (digits, +, spaces, dashes) or JID (user, group, LID).' })

export const SendTextBody = Type.Object({
  ...Credentials,
  chatId: ChatId,
  message: Type.Optional(Type.String({ maxLength: 65536 })),
  attachments: Type.Optional(Type.Array(Type.String(), { maxItems: 20, description: 'Attachment ids to send after the text.' })),
  location: Type.Optional(
    Type.Object({
      name: Type.Optional(Type.String()),
      lat: Type.String({ format: 'decimal-degrees' }),
      lng: Type.String({ format: 'decimal-degrees' })
    })
  ),
  contactId: Type.Optional(Type.String({ description: 'A contact to share as a vCard: a contact record’s id (its name and number), or a phone number or JID.' }))
})
export type SendTextBody = Static<typeof SendTextBody>

/** A reaction the shop sends on a message of a chat (docs/baileys.md "Edits, deletions, reactions and polls"). */
export const ReactionBody = Type.Object({
  ...Credentials,
  chatId: ChatId,
  messageId: Type.String({ minLength: 1, maxLength: 128, description: 'The message’s id (`id` in the log, `key.id` of a send).' }),
  emoji: Type.String({ maxLength: 32, description: 'One emoji, e.g. "👍"; "" takes the shop’s reaction back.' })
})
export type ReactionBody = Static<typeof ReactionBody>

/** Form fields of the image and video uploads (the file is the `file` part). */
export const MediaFields = Type.Object({ ...Credentials, chatId: ChatId, caption: Type.Optional(Type.String({ maxLength: 4096 })) })
export type MediaFields = Static<typeof MediaFields>

export const AudioFields = Type.Object({
  ...Credentials,
  chatId: ChatId,
  ptt: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')], { description: 'Send as a voice note.' }))
})
export type AudioFields = Static<typeof AudioFields>

export const DocFields = Type.Object({
  ...Credentials,
  chatId: ChatId,
  filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  caption: Type.Optional(Type.String({ maxLength: 4096 }))
})
export type DocFields = Static<typeof DocFields>

export const FileUrlFields = Type.Object({
  ...Credentials,
  chatId: ChatId,
  url: Type.String({ format: 'http-url' }),
  type: Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('audio'), Type.Literal('document')]),
  mimetype: Type.Optional(Type.String()),
  caption: Type.Optional(Type.String({ maxLength: 4096 })),
  filename: Type.Optional(Type.String({ maxLength: 255 }))
})
export type FileUrlFields = Static<typeof FileUrlFields>

export const Button = Type.Object({
  type: Type.Union([Type.Literal('replyButton'), Type.Literal('urlButton'), Type.Literal('callButton')]),
  title: Type.String({ minLength: 1, maxLength: 100 }),
  payload: Type.Optional(Type.String())
})

const ButtonData = {
  text: Type.String({ minLength: 1, maxLength: 4096 }),
  buttons: Type.Array(Button, { minItems: 1, maxItems: 10 }),
  footerText: Type.Optional(Type.String({ maxLength: 1024 }))
}

export const SendButtonsBody = Type.Object({ ...Credentials, chatId: ChatId, btndata: Type.Object(ButtonData) })
export type SendButtonsBody = Static<typeof SendButtonsBody>

export const SendMediaButtonBody = Type.Object({
  ...Credentials,
  chatId: ChatId,
  btndata: Type.Object({
    ...ButtonData,
    image: Type.String({ format: 'http-url', description: 'URL of the image.' }),
    mediaType: Type.Optional(Type.Literal('image')),
    mimeType: Type.Optional(Type.String())
  })
})
export type SendMediaButtonBody = Static<typeof SendMediaButtonBody>

export const SendContactBody = Type.Object({
  ...Credentials,
  chatId: ChatId,
  vcard: Type.Object({
    fullName: Type.String({ minLength: 1 }),
    displayName: Type.Optional(Type.String()),
    organization: Type.Optional(Type.String()),
    phoneNumber: Type.String({ pattern: '^\\+?[\\d\\s\\-.()]{3,32}$' })
  })
})
export type SendContactBody = Static<typeof SendContactBody>

export const SendListBody = Type.Object({
  ...Credentials,
  chatId: ChatId,
  msgdata: Type.Object({
    buttonText: Type.Optional(Type.String()),
    text: Type.String({ minLength: 1, maxLength: 4096 }),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    sections: Type.Array(
      Type.Object({
        title: Type.Optional(Type.String()),
        rows: Type.Array(
          Type.Object({
            title: Type.String({ minLength: 1 }),
            description: Type.Optional(Type.String()),
            rowId: Type.Optional(Type.String())
          }),
          { minItems: 1 }
        )
      }),
      { minItems: 1, maxItems: 10 }
    ),
    listType: Type.Optional(Type.Integer())
  })
})
export type SendListBody = Static<typeof SendListBody>

export const SendTextDeprecatedBody = Type.Object({
  ...Credentials,
  to: ChatId,
  message: Type.String({ minLength: 1, maxLength: 65536 })
})
export type SendTextDeprecatedBody = Static<typeof SendTextDeprecatedBody>

/* ---------- sandbox (docs/design.md §6) ---------- */

export const SandboxInboundBody = Type.Object({
  ...Credentials,
  chatId: ChatId,
  message: Type.String({ maxLength: 65536 }),
  pushName: Type.Optional(Type.String({ maxLength: 100 })),
  participant: Type.Optional(Type.String()),
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Message id; repeat it to simulate a duplicate.' })),
  offline: Type.Optional(Type.Boolean({ description: 'Simulates a message delivered while the instance was offline.' })),
  fromMe: Type.Optional(Type.Boolean({ description: 'Simulates a message sent from the linked phone.' })),
  timestamp: Type.Optional(Type.Integer({ minimum: 0, description: 'When it was sent, epoch seconds (default now): an older one simulates a late delivery.' })),
  selectedId: Type.Optional(Type.String({ description: 'Payload / rowId of a pressed button or list row.' })),
  senderLid: Type.Optional(Type.String()),
  attachmentId: Type.Optional(Type.String({ description: 'Simulates a media message: an attachment of this instance as the file, `message` as its caption.' })),
  location: Type.Optional(
    Type.Object(
      { latitude: Type.Number({ minimum: -90, maximum: 90 }), longitude: Type.Number({ minimum: -180, maximum: 180 }) },
      { description: 'Simulates a location message; `message` is its name.' }
    )
  )
})
export type SandboxInboundBody = Static<typeof SandboxInboundBody>
