import { isObject, parseJsonText } from '../shared/json-text.js'
import { isProblem } from '../shared/problem.js'
import { parseBasicAuth, type RegistryCredentials } from './credentials.js'
import { registryName } from './reference.js'

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
  // Told by line and column, never by JSON.parse's excerpt of the text, which may be a login.
  const parsed = parseJsonText(text)
  if (isProblem(parsed)) return unusableConfig(path, `is ${parsed.problem}`)
  const config = parsed.value
  if (!isObject(config)) return unusableConfig(path, 'is not a JSON object')
  const source = `the Docker config ${path}`
  const { logins, notes } = authsOf(config.auths, source)
  const helpers = helpersNote(config, source)
  return { logins, notes: helpers ? [...notes, helpers] : notes }
}

/** The `auths` entries that hold a login, by registry name; a note for each that cannot serve. */
function authsOf(auths: unknown, source: string): DockerLogins {
  const logins = new Map<string, RegistryCredentials>()
  const notes: string[] = []
  for (const [server, entry] of Object.entries(isObject(auths) ? auths : {})) {
    const found = entryCredentials(entry)
    if (typeof found !== 'string') logins.set(registryName(server), { ...found, source })
    else if (found !== '')
      notes.push(`${source}: the login to '${server}' ${found}; it is not used.`)
  }
  return { logins, notes }
}

/** The note about credential helpers, programs this step does not run; none without them. */
function helpersNote(config: Record<string, unknown>, source: string): string | undefined {
  const { credsStore, credHelpers } = config
  const helpers = [
    ...(typeof credsStore === 'string' ? [`credsStore '${credsStore}'`] : []),
    ...(isObject(credHelpers)
      ? Object.keys(credHelpers).map((server) => `credHelpers for '${server}'`)
      : []),
  ]
  if (helpers.length === 0) return undefined
  return `${source} names credential helpers (${helpers.join(', ')}), which are not run: the registries they serve are asked without their logins; to use one, give its login in 'registry-username' and 'registry-password' (and name it in 'registry' when the images are in several registries).`
}

/** The credentials of one `auths` entry, or why there are none ('' when it is simply empty). */
function entryCredentials(entry: unknown): Omit<RegistryCredentials, 'source'> | string {
  if (!isObject(entry)) return 'is not an object'
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    return parseBasicAuth(entry.auth) ?? "has an 'auth' that is not base64 of 'user:password'"
  }
  if (typeof entry.username === 'string' && typeof entry.password === 'string')
    return { username: entry.username, password: entry.password }
  if (typeof entry.identitytoken === 'string')
    return 'holds an identity token, which needs an OAuth exchange that this step does not make'
  return ''
}

/** No login, and a note that says why the config at `path` gave none. */
export function unusableConfig(path: string, problem: string): DockerLogins {
  return {
    logins: new Map(),
    notes: [
      `The Docker config ${path} ${problem}: its logins are not used, and the registries are asked without them.`,
    ],
  }
}
