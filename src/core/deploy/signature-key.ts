import { InputError, quote } from '../shared/errors.js'
import type { Files } from '../shared/ports.js'
import { isProblem, type Problem } from '../shared/problem.js'
import { readWorkspaceFile } from '../shared/workspace-file.js'
import { looksLikePem } from '../signing/pem.js'
import { parsePublicKey, PUBLIC_KEY_EXPECTED, type PublicKeyInfo } from '../signing/public-key.js'
import { keyVerifier, type SignatureVerifier } from '../signing/signer.js'

/** `verify-signatures` as given: the key itself, or the path of its file in the workspace. */
export type KeySource = { key: PublicKeyInfo } | { path: string }

/** A public key file is a few hundred bytes; a large file is not one. */
const MAX_KEY_FILE_BYTES = 64 * 1024

/** The input's value: PEM text is read at once; a path is read with the other input files. */
export function parseKeySource(raw: string): KeySource | undefined | Problem {
  if (raw === '') return undefined
  if (looksLikePem(raw)) {
    const key = parsePublicKey(raw)
    return isProblem(key) ? key : { key }
  }
  if (/[\0\r\n]/.test(raw))
    return { problem: `is neither PEM text nor a path; expected ${PUBLIC_KEY_EXPECTED}` }
  return { path: raw }
}

/** The verifier of `verify-signatures`, its file read when it is a path (see readKeyFile). */
export async function signatureVerifier(
  source: KeySource,
  workspace: string,
  files: Files,
): Promise<SignatureVerifier> {
  const key = 'key' in source ? source.key : await readKeyFile(source.path, workspace, files)
  return keyVerifier(key, 'verify-signatures')
}

function keyFileError(path: string, problem: string): InputError {
  return new InputError(
    'verify-signatures',
    `Invalid input 'verify-signatures' ${quote(path)}: ${problem}.`,
  )
}

/**
 * The public key in a file of the workspace (see readWorkspaceFile): a regular file of at most
 * 64 KiB.
 */
async function readKeyFile(path: string, workspace: string, files: Files): Promise<PublicKeyInfo> {
  const read = await readWorkspaceFile(path, workspace, files, MAX_KEY_FILE_BYTES, {
    missing: "give the public key's PEM text, or its path relative to the workspace",
    outside: 'keep the public key in the repository, or give its PEM text',
    notAFile: () => 'it is not a regular file; give the path of the public key (cosign.pub)',
    tooLarge: (size) =>
      `it is ${size} bytes, more than the ${MAX_KEY_FILE_BYTES} a public key file may have; check that it is cosign.pub`,
  })
  if (isProblem(read)) throw keyFileError(path, read.problem)
  const key = parsePublicKey(read.text)
  if (isProblem(key)) throw keyFileError(path, `the file ${key.problem}`)
  return key
}
