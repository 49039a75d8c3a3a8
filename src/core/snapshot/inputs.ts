import type { InputValues, RawInputs } from '../definition.js'
import { parseInputs } from '../shared/inputs.js'
import { snapshotDefinition, type SnapshotInputName } from './definition.js'

/** The snapshot action's inputs, validated and typed (see snapshotDefinition). */
export type SnapshotInputs = InputValues<typeof snapshotDefinition>

export function parseSnapshotInputs(raw: RawInputs<SnapshotInputName>): SnapshotInputs {
  return parseInputs(snapshotDefinition, raw)
}
