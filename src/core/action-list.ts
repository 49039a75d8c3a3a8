import { buildImagesDefinition } from './build-images/definition.js'
import type { ActionDefinition } from './definition.js'
import { deployDefinition } from './deploy/definition.js'
import { snapshotDefinition } from './snapshot/definition.js'

/** Every action, in the order of the deployment process's steps. */
export const ACTION_DEFINITIONS: readonly ActionDefinition[] = [
  snapshotDefinition,
  buildImagesDefinition,
  deployDefinition,
]

/** The action that `uses: owner/repo@v1` (the root action.yml) runs. */
export const ROOT_ACTION = deployDefinition
