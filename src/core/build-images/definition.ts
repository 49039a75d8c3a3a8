import type { ActionDefinition } from '../definition.js'

// Stub: filled in by the build-images work.
export const buildImagesDefinition = {
  id: 'build-images',
  name: 'Olympe build images',
  description: 'TODO',
  inputs: {},
  outputs: {},
} as const satisfies ActionDefinition
