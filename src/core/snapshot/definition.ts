import type { ActionDefinition } from '../definition.js'

// Stub: filled in by the snapshot work.
export const snapshotDefinition = {
  id: 'snapshot',
  name: 'Olympe snapshot',
  description: 'TODO',
  inputs: {},
  outputs: {},
} as const satisfies ActionDefinition
