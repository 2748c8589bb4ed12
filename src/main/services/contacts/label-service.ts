/**
 * Labels (docs/design.md §18): account-wide names with a colour, put on contacts and so
 * on their conversations in the inbox. A label named on a contact that does not exist yet is made
 * with the next colour; renaming or deleting one changes every contact that has it, in one write.
 */
import type { Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import { newObjectId } from '../../ids'
import type { Repositories, Stored } from '../../store/repos'
import { LABEL_COLORS, type Label } from '../../../shared/schemas/records'
import { conflict, notFound } from '../../errors'

type Color = Label['color']

export class LabelService {
  constructor(private readonly deps: { repos: Pick<Repositories, 'labels'>; events: CoreEventBus; clock: Clock }) {}

  list(): Promise<Stored<Label>[]> {
    return this.deps.repos.labels.all()
  }

  /** Makes a label. 409 when one with that name (any case) exists. */
  async create(name: string, color?: Color): Promise<Stored<Label>> {
    if (await this.deps.repos.labels.byName(name.trim())) throw conflict(`A label called "${name.trim()}" exists already.`)
    const now = new Date(this.deps.clock.now()).toISOString()
    const label = await this.deps.repos.labels.put({ _id: newObjectId(), name: name.trim(), color: color ?? (await this.nextColor()), createdAt: now, updatedAt: now })
    this.deps.events.emit('labels', {})
    return label
  }

  /** Renames (on every contact too) or recolours a label. 404 / 409 on a name taken by another. */
  async update(id: string, change: { name?: string; color?: Color }): Promise<Stored<Label>> {
    const label = await this.deps.repos.labels.find(id)
    if (!label) throw notFound('Label')
    const name = change.name?.trim() ?? label.name
    const other = await this.deps.repos.labels.byName(name)
    if (other && other._id !== id) throw conflict(`A label called "${name}" exists already.`)
    const next: Label = { ...label, name, color: change.color ?? label.color, updatedAt: new Date(this.deps.clock.now()).toISOString() }
    await this.deps.repos.labels.relabel(label.name, name, { put: next })
    this.deps.events.emit('labels', {})
    return next
  }

  /** Deletes a label and takes it off every contact. */
  async delete(id: string): Promise<void> {
    const label = await this.deps.repos.labels.find(id)
    if (!label) throw notFound('Label')
    await this.deps.repos.labels.relabel(label.name, null, { removeId: id })
    this.deps.events.emit('labels', {})
  }

  /** Makes the labels of `names` that do not exist yet (a contact was given them). */
  async ensure(names: readonly string[]): Promise<void> {
    let made = false
    for (const name of new Set(names.map((n) => n.trim()).filter(Boolean))) {
      if (await this.deps.repos.labels.byName(name)) continue
      const now = new Date(this.deps.clock.now()).toISOString()
      await this.deps.repos.labels.put({ _id: newObjectId(), name, color: await this.nextColor(), createdAt: now, updatedAt: now })
      made = true
    }
    if (made) this.deps.events.emit('labels', {})
  }

  private async nextColor(): Promise<Color> {
    return LABEL_COLORS[(await this.deps.repos.labels.count()) % LABEL_COLORS.length]!
  }
}
