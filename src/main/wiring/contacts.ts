/** Wiring of the contacts and their labels; contacts are collected from messages from now on. */
import { ContactService } from '../services/contacts/contact-service'
import { LabelService } from '../services/contacts/label-service'
import type { Step, Wiring } from './steps'

export function wireContacts(w: Wiring): { contacts: ContactService; labels: LabelService; step: Step } {
  const { repos, events, clock } = w
  const labels = new LabelService({ repos, events, clock })
  const contacts = new ContactService({ repos, events, clock, labels })
  const stopContacts = contacts.start()
  return { contacts, labels, step: { name: 'contacts', close: stopContacts } }
}
