/** Records of contacts: contacts, labels, contact groups and the opt-out words. */
import Type, { type Static } from 'typebox'

/**
 * Opt-out (docs/design.md §17 "Opt-out"): a customer whose whole message is an opt-out word is marked opted out (no
 * broadcast or scheduled message reaches them) and told once; an opt-in word reverses it.
 */
export const OptOutSettings = Type.Object({
  optout_keyword: Type.String({ maxLength: 200, description: 'Comma-separated words; the whole message must be one of them (any case). Empty = off.' }),
  optin_keyword: Type.String({ maxLength: 200 }),
  optout_reply: Type.String({ maxLength: 1000 }),
  optin_reply: Type.String({ maxLength: 1000 })
})
export type OptOutSettings = Static<typeof OptOutSettings>
export const DEFAULT_OPT_OUT: OptOutSettings = {
  optout_keyword: 'STOP,UNSUBSCRIBE',
  optin_keyword: 'START,SUBSCRIBE',
  optout_reply: 'You will get no more messages from us. Write START to hear from us again.',
  optin_reply: 'Welcome back! You will hear from us again. Write STOP to stop.'
}

/** The default words and replies in the bot's language (`bot_lang`'s first two letters); English STOP/START always work. */
const OPT_OUT_BY_LANG: Record<string, OptOutSettings> = {
  es: {
    optout_keyword: 'STOP,BAJA,PARAR,UNSUBSCRIBE',
    optin_keyword: 'START,ALTA,SUBSCRIBE',
    optout_reply: 'No recibirás más mensajes nuestros. Escribe ALTA para volver a recibirlos.',
    optin_reply: '¡Bienvenido de nuevo! Volverás a recibir nuestros mensajes. Escribe BAJA para dejar de recibirlos.'
  },
  pt: {
    optout_keyword: 'STOP,PARAR,SAIR,UNSUBSCRIBE',
    optin_keyword: 'START,VOLTAR,SUBSCRIBE',
    optout_reply: 'Você não receberá mais mensagens nossas. Escreva VOLTAR para recebê-las de novo.',
    optin_reply: 'Bem-vindo de volta! Você voltará a receber nossas mensagens. Escreva PARAR para parar.'
  },
  fr: {
    optout_keyword: 'STOP,ARRET,ARRÊT,DESABONNER,UNSUBSCRIBE',
    optin_keyword: 'START,ABONNER,SUBSCRIBE',
    optout_reply: 'Vous ne recevrez plus de messages de notre part. Écrivez ABONNER pour en recevoir à nouveau.',
    optin_reply: 'Bon retour ! Vous recevrez à nouveau nos messages. Écrivez STOP pour arrêter.'
  },
  de: {
    optout_keyword: 'STOP,STOPP,ABMELDEN,UNSUBSCRIBE',
    optin_keyword: 'START,ANMELDEN,SUBSCRIBE',
    optout_reply: 'Sie erhalten keine Nachrichten mehr von uns. Schreiben Sie START, um wieder welche zu erhalten.',
    optin_reply: 'Willkommen zurück! Sie erhalten wieder unsere Nachrichten. Schreiben Sie STOPP zum Abmelden.'
  },
  it: {
    optout_keyword: 'STOP,BASTA,DISISCRIVI,UNSUBSCRIBE',
    optin_keyword: 'START,ISCRIVI,SUBSCRIBE',
    optout_reply: 'Non riceverai più messaggi da noi. Scrivi ISCRIVI per riceverli di nuovo.',
    optin_reply: 'Bentornato! Riceverai di nuovo i nostri messaggi. Scrivi STOP per smettere.'
  }
}

/** The opt-out words and replies an instance starts with, in its `bot_lang` (English when not listed). */
export function defaultOptOut(botLang: string): OptOutSettings {
  return OPT_OUT_BY_LANG[botLang.slice(0, 2).toLowerCase()] ?? DEFAULT_OPT_OUT
}

/**
 * A contact (docs/design.md §17, the original service's `/contact` shape plus labels, notes, opt-out and
 * when they last wrote). Made by hand or collected from conversations; `number` is digits only.
 */
export const Contact = Type.Object({
  _id: Type.String(),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  number: Type.String({
    description: 'Phone number, digits only (country code first); or, for a customer who hides the number behind a WhatsApp username, their LID (`…@lid`, docs/baileys.md "Usernames").'
  }),
  client_id: Type.String(),
  /** The instance it belongs to (created through, or collected by). */
  instance_id: Type.String(),
  group_id: Type.Union([Type.String(), Type.Null()], { description: 'Its contact group, or null.' }),
  channel: Type.Literal('whatsapp'),
  labels: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20 }),
  notes: Type.String({ maxLength: 2000 }),
  opted_out: Type.Boolean({ description: 'Asked not to get broadcasts or scheduled messages.' }),
  last_seen_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When they last wrote (to within an hour).' }),
  username: Type.Optional(Type.String({ description: 'A contact keyed by a LID: the WhatsApp username their chat carries (no "@"; shown as "@name"). Read from the chat, never stored on the contact.' })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  __v: Type.Integer()
})
export type Contact = Static<typeof Contact>

/** The colours a label may have (Mantine's palette names; the UI paints them). */
export const LABEL_COLORS = ['blue', 'green', 'orange', 'red', 'grape', 'teal', 'yellow', 'pink', 'indigo', 'cyan', 'lime', 'violet', 'gray'] as const

/** A label (docs/design.md §18 "Labels"): a name and a colour, put on contacts and so on their conversations. Account-wide. */
export const Label = Type.Object({
  _id: Type.String(),
  name: Type.String({ minLength: 1, maxLength: 40 }),
  color: Type.Enum(LABEL_COLORS),
  createdAt: Type.String(),
  updatedAt: Type.String()
})
export type Label = Static<typeof Label>

/** A contact group (docs/design.md §17, the original service's `/contact_groups` shape). */
export const ContactGroup = Type.Object({
  _id: Type.String(),
  title: Type.String({ minLength: 1, maxLength: 100 }),
  is_default: Type.Boolean(),
  client_id: Type.String(),
  instance_id: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  __v: Type.Integer()
})
export type ContactGroup = Static<typeof ContactGroup>
