import { toJsonSchema } from '@valibot/to-json-schema'
import { SnapshotConfigSchema } from './config-schema.js'

/**
 * The configuration's JSON Schema, generated from the very valibot schema the action validates
 * with, so that an editor and the action agree. Checks that need code (URL parsing, folder
 * containment) have no JSON Schema form; the action still runs them.
 */
export function snapshotConfigJsonSchema(): string {
  const schema = toJsonSchema(SnapshotConfigSchema, {
    target: 'draft-07',
    ignoreActions: ['check'],
  })
  return `${JSON.stringify(schema, null, 2)}\n`
}
