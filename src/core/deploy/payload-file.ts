import * as v from 'valibot'
import { InputError, quote } from '../shared/errors.js'
import { describeIssues } from '../shared/issues.js'
import { isObject, parseJsonText } from '../shared/json-text.js'
import type { Files } from '../shared/ports.js'
import { isProblem } from '../shared/problem.js'
import { readWorkspaceFile } from '../shared/workspace-file.js'
import { BasePayloadSchema, PAYLOAD_WORDING, type BasePayload } from './payload-schema.js'

/** A payload is a few hundred bytes; a file a thousand times larger is not one. */
export const MAX_PAYLOAD_FILE_BYTES = 1024 * 1024

/** `Invalid input 'payload-file' '<path>': <problem>.`, the one form of its messages. */
export function payloadFileError(path: string, problem: string): InputError {
  return new InputError('payload-file', `Invalid input 'payload-file' ${quote(path)}: ${problem}.`)
}

/**
 * Reads `payload-file`: a regular file of at most 1 MiB (a FIFO or a device would block the step
 * forever, a directory cannot be read) inside the workspace, symbolic links resolved (a repository
 * file that anyone who may push can change must not make the step read another), JSON with or
 * without a byte order mark, validated like the inputs. Messages name the file and the JSON path,
 * never more of its text than one character.
 */
export async function readBasePayload(
  path: string,
  workspace: string,
  files: Files,
): Promise<BasePayload> {
  const text = await readPayloadText(path, workspace, files)
  const parsed = parseJsonText(text)
  if (isProblem(parsed)) throw payloadFileError(path, parsed.problem)
  const document = parsed.value
  // valibot's object schemas take arrays too; a payload is a JSON object.
  if (!isObject(document))
    throw payloadFileError(path, 'expected a JSON object, such as {"frontend": {}}')
  const result = v.safeParse(BasePayloadSchema, document)
  if (!result.success) {
    const problems = describeIssues(result.issues, PAYLOAD_WORDING).join('; ')
    throw payloadFileError(path, `it does not follow the deployment payload schema: ${problems}`)
  }
  return result.output
}

async function readPayloadText(path: string, workspace: string, files: Files): Promise<string> {
  const read = await readWorkspaceFile(path, workspace, files, MAX_PAYLOAD_FILE_BYTES, {
    missing: 'give a path relative to the workspace',
    outside:
      'keep the payload file in the repository (a symbolic link that stays inside it is fine)',
    notAFile: (kind) =>
      kind === 'directory'
        ? 'it is a directory; give the path of a JSON file'
        : 'it is not a regular file (a FIFO, a socket or a device), which the step could wait on forever; give the path of a JSON file',
    tooLarge: (size) =>
      `it is ${size} bytes, more than the 1 MiB (${MAX_PAYLOAD_FILE_BYTES} bytes) a payload file may have; check that it is the right file`,
  })
  if (isProblem(read)) throw payloadFileError(path, read.problem)
  return read.text
}
