import { setTimeout as sleep } from 'node:timers/promises'
import type { Clock } from '../core/shared/ports.js'

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: async (ms) => {
    await sleep(ms)
  },
}
