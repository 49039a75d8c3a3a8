import { isAbsolute, relative, resolve, sep } from 'node:path'
import * as v from 'valibot'
import { errorMessage, InputError, quote } from '../shared/errors.js'
import { describeIssues } from '../shared/issues.js'
import { parseJsonText } from '../shared/json-text.js'
import type { Files } from '../shared/ports.js'
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
  if ('problem' in parsed) throw payloadFileError(path, parsed.problem)
  const document = parsed.value
  // valibot's object schemas take arrays too; a payload is a JSON object.
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw payloadFileError(path, 'expected a JSON object, such as {"frontend": {}}')
  const result = v.safeParse(BasePayloadSchema, document)
  if (!result.success) {
    const problems = describeIssues(result.issues, PAYLOAD_WORDING).join('; ')
    throw payloadFileError(path, `it does not follow the deployment payload schema: ${problems}`)
  }
  return result.output
}

async function readPayloadText(path: string, workspace: string, files: Files): Promise<string> {
  const fullPath = resolve(workspace, path)
  const found = await files.stat(fullPath)
  if (!found)
    throw payloadFileError(
      path,
      `there is no file at ${quote(fullPath)}; give a path relative to the workspace`,
    )
  const outside = await outsideProblem(fullPath, workspace, files)
  if (outside) throw payloadFileError(path, outside)
  if (found.kind === 'directory')
    throw payloadFileError(path, 'it is a directory; give the path of a JSON file')
  if (found.kind !== 'file')
    throw payloadFileError(
      path,
      'it is not a regular file (a FIFO, a socket or a device), which the step could wait on forever; give the path of a JSON file',
    )
  if (found.size > MAX_PAYLOAD_FILE_BYTES)
    throw payloadFileError(
      path,
      `it is ${found.size} bytes, more than the 1 MiB (${MAX_PAYLOAD_FILE_BYTES} bytes) a payload file may have; check that it is the right file`,
    )
  try {
    return await files.readText(fullPath)
  } catch (error) {
    throw payloadFileError(path, `cannot read it (${errorMessage(error)})`)
  }
}

/** Why a path that exists resolves outside the workspace, or undefined when it stays inside. */
async function outsideProblem(
  fullPath: string,
  workspace: string,
  files: Pick<Files, 'realpath'>,
): Promise<string | undefined> {
  const [real, root] = await Promise.all([
    files.realpath(fullPath).catch(() => fullPath),
    files.realpath(workspace).catch(() => workspace),
  ])
  const way = relative(root, real)
  if (way !== '..' && !way.startsWith(`..${sep}`) && !isAbsolute(way)) return undefined
  const where = real === fullPath ? 'it is' : `it leads to ${quote(real)},`
  return `${where} outside the workspace ${quote(root)}: the step reads no file outside the repository it deploys. Give a JSON file inside it (a symbolic link that stays inside is fine)`
}
