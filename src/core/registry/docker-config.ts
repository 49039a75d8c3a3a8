import { errorMessage } from '../shared/errors.js'
import { registryName } from './reference.js'

/** A user name and password for one registry, and where they came from (for messages). */
export interface RegistryCredentials {
  username: string
  password: string
  /** `'registry-username' and 'registry-password'`, or `the Docker config <path>`. */
  source: string
}

/** The logins a Docker config holds, by registry name (see registryName). */
export interface DockerLogins {
  logins: Map<string, RegistryCredentials>
  /** What was found but not used, for the log: credential helpers, identity tokens, bad entries. */
  notes: string[]
}

/**
 * Reads the `auths` of a Docker config (what `docker login` wrote): each entry's `auth` is
 * base64 of `user:password`. Credential helpers (`credsStore`, `credHelpers`) are programs we
 * do not run, and identity tokens need an OAuth exchange: both are skipped with a note.
 */
export function parseDockerConfig(text: string, path: string): DockerLogins {
  const logins = new Map<string, RegistryCredentials>()
  const notes: string[] = []
  let config: unknown
  try {
    config = JSON.parse(text)
  } catch (error) {
    return { logins, notes: [`The Docker config ${path} is not JSON (${errorMessage(error)}).`] }
  }
  if (!isObject(config)) return { logins, notes: [`The Docker config ${path} is not an object.`] }
  const source = `the Docker config ${path}`
  const auths = isObject(config.auths) ? config.auths : {}
  for (const [server, entry] of Object.entries(auths)) {
    const found = entryCredentials(entry)
    if (typeof found === 'string') {
      if (found !== '') notes.push(`${source}: the login to '${server}' ${found}; it is not used.`)
      continue
    }
    logins.set(registryName(server), { ...found, source })
  }
  const helpers = [
    ...(typeof config.credsStore === 'string' ? [`credsStore '${config.credsStore}'`] : []),
    ...(isObject(config.credHelpers)
      ? Object.keys(config.credHelpers).map((server) => `credHelpers for '${server}'`)
      : []),
  ]
  if (helpers.length > 0)
    notes.push(
      `${source} names credential helpers (${helpers.join(', ')}), which are not run: the registries they serve are asked without their logins; give 'registry-username' and 'registry-password' for one of them.`,
    )
  return { logins, notes }
}

/** The credentials of one `auths` entry, or why there are none ('' when it is simply empty). */
function entryCredentials(entry: unknown): Omit<RegistryCredentials, 'source'> | string {
  if (!isObject(entry)) return 'is not an object'
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon <= 0) return "has an 'auth' that is not base64 of 'user:password'"
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
  }
  if (typeof entry.username === 'string' && typeof entry.password === 'string')
    return { username: entry.username, password: entry.password }
  if (typeof entry.identitytoken === 'string')
    return 'holds an identity token, which needs an OAuth exchange that this step does not make'
  return ''
}

/** The forms of a login that can leak: the password, and the base64 `auth` Docker stores. */
export function credentialSecrets(credentials: Omit<RegistryCredentials, 'source'>): string[] {
  const { username, password } = credentials
  if (password === '') return []
  return [password, Buffer.from(`${username}:${password}`).toString('base64')]
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
