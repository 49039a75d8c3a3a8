import { run as buildImages } from './actions/build-images.js'
import { run as deploy } from './actions/deploy.js'
import { run as snapshot } from './actions/snapshot.js'
import type { ActionId } from './core/action-list.js'
import type { Invocation } from './platform/start.js'

/**
 * Each action's step, by the ids of src/core/action-list.ts (the type asks for every one). The
 * modules are imported, not loaded lazily: importing one runs nothing, and each loads what only
 * its run needs when it runs.
 */
const STEPS: Readonly<Record<ActionId, (invocation?: Invocation) => Promise<void>>> = {
  snapshot,
  'build-images': buildImages,
  deploy,
}

/** Runs one action: dist/<id>/index.js calls it as a GitHub step, the command line with its flags. */
export function runActionStep(id: ActionId, invocation: Invocation = {}): Promise<void> {
  return STEPS[id](invocation)
}
