import * as v from 'valibot'
import type { RawInputs } from '../definition.js'
import { parseRegistry } from '../build-images/image-names.js'
import { registryName } from '../registry/reference.js'
import { InputError } from '../shared/errors.js'
import { describeInputProblem, refine } from '../shared/inputs.js'
import { choiceInput } from '../shared/parse.js'
import type { RegistryLogin } from '../registry/logins.js'
import { deployDefinition, type DeployInputName } from './definition.js'
import { VERIFY_MODES, type VerifyMode } from './verify-images.js'

/** The image check's inputs (issue 12), kept apart from the payload's. */
export const verifyImagesInput = v.pipe(
  choiceInput(VERIFY_MODES),
  v.transform((mode): VerifyMode => mode ?? 'auto'),
)

/** `registry`: the host the login is for, by its one name (Docker Hub's aliases as `docker.io`). */
export const registryInput = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  const parsed = parseRegistry(raw)
  return 'problem' in parsed ? parsed : registryName(parsed.host)
})

/** Both or neither, as for `docker login`. */
export function registryLogin(
  raw: RawInputs<DeployInputName>,
  registry: string | undefined,
): RegistryLogin | undefined {
  const username = raw['registry-username']
  const password = raw['registry-password']
  if (username === '' && password === '') return undefined
  if (username !== '' && password !== '') return { registry, username, password }
  const [missing, given] =
    username === ''
      ? (['registry-username', 'registry-password'] as const)
      : (['registry-password', 'registry-username'] as const)
  throw new InputError(
    missing,
    describeInputProblem(
      deployDefinition,
      raw,
      missing,
      `is empty while '${given}' is set; give both for the image check, or neither to use the job's Docker login`,
    ),
  )
}
