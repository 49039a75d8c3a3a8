import { CREDENTIAL_INPUTS, type RegistryCredentials, type RegistryLogin } from './credentials.js'
import { loginForms } from './inputs.js'
import { parseDockerConfig, unusableConfig, type DockerLogins } from './docker-config-logins.js'
import type { RegistryImage } from './reference.js'
import { unique } from '../shared/collections.js'
import { errorMessage, InputError } from '../shared/errors.js'
import type { CommonPorts } from '../shared/ports.js'

export interface LoginPorts extends Pick<CommonPorts, 'logger' | 'files' | 'registerSecret'> {
  /**
   * The job's own logins: its Docker config file (`$DOCKER_CONFIG/config.json` or
   * `~/.docker/config.json`), or with Buildah its auth file, which has the same format.
   */
  dockerConfigPath: string
}

/** The login one image's registry is asked with; undefined: anonymously. */
export type CredentialsFor = (image: RegistryImage) => RegistryCredentials | undefined

/** The inputs' login, once the registry it is for is known. */
export interface InputsLogin {
  registry: string
  credentials: RegistryCredentials
}

/**
 * Which login each registry of the images is asked with (see chooseLogins), the Docker config read
 * through the Files port. `inputs` is the inputs' login with the registry it is for, decided in
 * the check phase (see loginForImages). Registers the chosen passwords as secrets and logs each
 * choice.
 */
export async function credentialSource(
  targets: readonly RegistryImage[],
  inputs: InputsLogin | undefined,
  ports: LoginPorts,
): Promise<CredentialsFor> {
  const registries = unique(targets.map((target) => target.registry))
  const docker = await readDockerLogins(ports)
  for (const note of docker.notes) ports.logger.info(note)
  const chosen = chooseLogins(registries, inputs, docker.logins)
  for (const [registry, credentials] of chosen) announce(registry, credentials, ports)
  if (inputs && !chosen.has(inputs.registry))
    ports.logger.info(
      `No image is in '${inputs.registry}', the registry ${CREDENTIAL_INPUTS} are for: they are not used.`,
    )
  return (image) => chosen.get(image.registry)
}

const UNNAMED_REGISTRY = `${CREDENTIAL_INPUTS} are given but 'registry' is empty, and no image input names a registry (the images come from 'payload-file' only): the registry a login is for is never taken from a file, so the images are checked without it. Set 'registry' to the registry these credentials are for.`

/**
 * The inputs' login with the registry it is for (see inputsLogin), decided before anything is
 * read or sent: `registries` are those of every image to be asked, `named` those of the images
 * given as inputs, which alone may say which registry a login is for. Throws an InputError when
 * the login could go to several; says so in `warning` when it goes to none of the images.
 */
export function loginForImages(
  login: RegistryLogin | undefined,
  registries: readonly string[],
  named: readonly string[],
): { login?: InputsLogin; warning?: string } {
  if (!login) return {}
  const inputs = inputsLogin(login, unique(named))
  if (!inputs && registries.length > 0) return { warning: UNNAMED_REGISTRY }
  return inputs ? { login: inputs } : {}
}

/**
 * Which login each registry is asked with: the inputs' for their registry, else the Docker
 * config's for that registry, else none (anonymous). A login is never chosen for a registry it
 * was not given for.
 */
export function chooseLogins(
  registries: readonly string[],
  inputs: InputsLogin | undefined,
  docker: ReadonlyMap<string, RegistryCredentials>,
): Map<string, RegistryCredentials | undefined> {
  return new Map(
    registries.map((registry) => [
      registry,
      registry === inputs?.registry ? inputs.credentials : docker.get(registry),
    ]),
  )
}

/**
 * The registry the inputs' login is for: `registry` when given, else the images' one registry.
 * With images in several registries and no `registry`, guessing could send the password to the
 * wrong one: an InputError that says how to name it.
 */
export function inputsLogin(
  login: RegistryLogin,
  registries: readonly string[],
): InputsLogin | undefined {
  const credentials = {
    username: login.username,
    password: login.password,
    source: CREDENTIAL_INPUTS,
  }
  if (login.registry !== undefined) return { registry: login.registry, credentials }
  const [only, ...others] = registries
  if (only === undefined) return undefined
  if (others.length === 0) return { registry: only, credentials }
  throw new InputError(
    'registry',
    `Invalid input 'registry' '': it is empty, but ${CREDENTIAL_INPUTS} are given and the images are in ${registries.length} registries (${registries.map((r) => `'${r}'`).join(', ')}); set 'registry' to the one these credentials are for (such as '${only}'), so that they are never sent to another.`,
  )
}

function announce(
  registry: string,
  credentials: RegistryCredentials | undefined,
  ports: LoginPorts,
): void {
  if (credentials)
    for (const secret of loginForms(credentials.username, credentials.password))
      ports.registerSecret(secret)
  const how = credentials ? `with the login from ${credentials.source}` : 'anonymously'
  ports.logger.info(`Registry '${registry}': asked ${how}.`)
}

/** The logins of the job's Docker config; none, with a note saying why, when it cannot be used. */
export async function readDockerLogins(ports: LoginPorts): Promise<DockerLogins> {
  const path = ports.dockerConfigPath
  const found = await ports.files.stat(path)
  if (!found) return { logins: new Map(), notes: [] }
  if (found.kind !== 'file') return unusableConfig(path, 'is not a file')
  let text: string
  try {
    text = await ports.files.readText(path)
  } catch (error) {
    return unusableConfig(path, `could not be read (${errorMessage(error)})`)
  }
  return parseDockerConfig(text, path)
}
