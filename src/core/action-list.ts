import { buildImagesDefinition } from './build-images/definition.js'
import type { ActionDefinition } from './definition.js'
import { deployDefinition } from './deploy/definition.js'
import { snapshotDefinition } from './snapshot/definition.js'

/**
 * Every action, in the order of the deployment process's steps: the one list of them. The ids,
 * the command line's commands, the bundle's entries (scripts/build.js reads this file), the
 * generated files and the GitLab templates follow it. Two tables keyed by id, whose types ask for
 * every id listed here, say what a definition cannot: the module that runs each action
 * (src/action-steps.ts) and its Marketplace icon (scripts/render/action-yml.ts).
 */
const DEFINITIONS = [snapshotDefinition, buildImagesDefinition, deployDefinition] as const

/** An action's id: its folder, its command, its GitLab template (see ActionDefinition.id). */
export type ActionId = (typeof DEFINITIONS)[number]['id']

export const ACTION_DEFINITIONS: ReadonlyArray<ActionDefinition & { id: ActionId }> = DEFINITIONS

export const ACTION_IDS: readonly ActionId[] = DEFINITIONS.map(({ id }) => id)

/** The action that `uses: owner/repo@v1` (the root action.yml) runs. */
export const ROOT_ACTION = deployDefinition
