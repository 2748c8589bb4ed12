import { describe, expect, it } from 'vitest'
import { SendQueue } from '../../../src/main/channel/baileys/send-queue'
import { FakeClock } from '../../helpers/fake-baileys'

const tick = () => new Promise<void>((r) => setImmediate(r))

describe('SendQueue', () => {
  it('runs tasks in order, one at a time, with min interval + jitter between them', async () => {
    const clock = new FakeClock()
    const q = new SendQueue({ minIntervalMs: 1000, jitterMs: 500, timers: clock, random: () => 0.5 })
    const started: Array<[string, number]> = []
    const task = (name: string) => async () => {
      started.push([name, clock.now()])
      return name
    }
    const t0 = clock.now()
    const results = [q.enqueue(task('a')), q.enqueue(task('b')), q.enqueue(task('c'))]
    await tick()
    expect(started).toEqual([['a', t0]])
    expect(clock.pendingDelays()).toEqual([1250])
    clock.advance(1249)
    await tick()
    expect(started.length).toBe(1)
    clock.advance(1)
    await tick()
    expect(started.map((s) => s[0])).toEqual(['a', 'b'])
    clock.advance(1250)
    await tick()
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c'])
    expect(started.map(([, at]) => at - t0)).toEqual([0, 1250, 2500])
  })

  it('a failing task rejects its caller only; the queue goes on', async () => {
    const clock = new FakeClock()
    const q = new SendQueue({ minIntervalMs: 0, jitterMs: 0, timers: clock, random: () => 0 })
    const a = q.enqueue(async () => {
      throw new Error('boom')
    })
    const b = q.enqueue(async () => 'ok')
    await expect(a).rejects.toThrow('boom')
    await expect(b).resolves.toBe('ok')
  })

  it('clear() rejects the tasks not yet started', async () => {
    const clock = new FakeClock()
    const q = new SendQueue({ minIntervalMs: 1000, jitterMs: 0, timers: clock, random: () => 0 })
    let ran = 0
    const first = q.enqueue(async () => ++ran)
    const second = q.enqueue(async () => ++ran)
    await first
    await tick()
    q.clear(new Error('stopped'))
    await expect(second).rejects.toThrow('stopped')
    clock.advance(5000)
    await tick()
    expect(ran).toBe(1)
    expect(q.size).toBe(0)
  })
})
