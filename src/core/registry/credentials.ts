import { parseImageReference } from '../shared/image-ref.js'
import { refine } from '../shared/inputs.js'
import { isPortNumber, PORT_RANGE } from '../shared/port-number.js'
import type { Problem } from '../shared/problem.js'

/** Where images go: `docker login` needs the host alone, references need the namespace too. */
export interface RegistryTarget {
  /** `host[:port]`, the `docker login` server. */
  host: string
  /** `host[:port][/namespace]`, the prefix of every image reference. */
  prefix: string
}

/** A user name and password for one registry, and where they came from (for messages). */
export interface RegistryCredentials {
  username: string
  password: string
  /** `'registry-username' and 'registry-password'`, or `the Docker config <path>`. */
  source: string
}

/** The registry login given as inputs: `registry` undefined means "the images' one registry". */
export interface RegistryLogin {
  registry?: string
  username: string
  password: string
}

/** Where the inputs' login comes from, as every message names it. */
export const CREDENTIAL_INPUTS = "'registry-username' and 'registry-password'"

export const REGISTRY_EXPECTED =
  "expected a registry host with an optional port and namespace, such as 'ghcr.io', 'registry.example.com:5000' or 'ghcr.io/acme' (no scheme, no tag)"

const PROBE = 'probe'

export function parseRegistry(raw: string): RegistryTarget | Problem {
  const prefix = raw.trim().replace(/\/+$/, '')
  if (/^[a-z]+:\/\//i.test(prefix)) return { problem: `has a scheme; ${REGISTRY_EXPECTED}` }
  const slash = prefix.indexOf('/')
  const host = slash === -1 ? prefix : prefix.slice(0, slash)
  const parsed = parseImageReference(`${prefix}/${PROBE}:${PROBE}`)
  // Docker takes the first part for a registry only when it looks like a host (a dot, a port
  // or localhost); anything else would silently mean a Docker Hub namespace.
  if (typeof parsed === 'string' || parsed.domain !== host)
    return { problem: `is not a registry host; ${REGISTRY_EXPECTED}` }
  const port = /:(\d+)$/.exec(host)?.[1]
  if (port !== undefined && !isPortNumber(port))
    return { problem: `has port ${port}, which is not ${PORT_RANGE}; ${REGISTRY_EXPECTED}` }
  return { host, prefix }
}

/** The `registry` input of both actions: '' means "not given". */
export const registryInput = refine<RegistryTarget | undefined>((raw) =>
  raw === '' ? undefined : parseRegistry(raw),
)

/** Which of the two login inputs is wrong, and why. */
export interface LoginProblem extends Problem {
  input: 'registry-username' | 'registry-password'
}

/** The login a step uses when neither login input is given, as the builder keeps it. */
export const EXISTING_LOGIN = {
  docker: "the job's existing Docker login",
  buildah: "Buildah's login from earlier in the job (buildah login)",
  auto: "the job's existing login (docker login, or buildah login)",
} as const

/** What a message about a login given by half says, in the words of where the step runs. */
export interface LoginAdvice {
  /** The login the step uses without the inputs: EXISTING_LOGIN's, by builder. */
  existing: string
  /**
   * Where the password comes from when a pipeline gives the user name, and how to set it
   * (CiContext.registryPasswordFrom): GitLab's templates fill both from CI/CD variables.
   */
  passwordFrom?: string
}

/**
 * `registry-username` and `registry-password`: both or neither, as for `docker login`. Basic
 * auth joins them as user:password (RFC 7617) and `docker login` reads one line, so a user name
 * can hold neither a colon nor a control character.
 */
export function loginFromInputs(
  username: string | undefined,
  password: string | undefined,
  advice: LoginAdvice = { existing: EXISTING_LOGIN.docker },
): { username: string; password: string } | undefined | LoginProblem {
  if (username && /[:\p{Cc}]/u.test(username))
    return {
      input: 'registry-username',
      problem:
        'holds a colon or a control character (a line break, a tab), which no registry user name can; expected the user name alone',
    }
  if (username && password) return { username, password }
  if (!username && !password) return undefined
  if (username && advice.passwordFrom)
    return {
      input: 'registry-password',
      problem: `is empty while 'registry-username' is set; ${advice.passwordFrom}; or leave 'registry-username' empty to use ${advice.existing}`,
    }
  const [input, given] = username
    ? (['registry-password', 'registry-username'] as const)
    : (['registry-username', 'registry-password'] as const)
  return {
    input,
    problem: `is empty while '${given}' is set; give both, or neither to use ${advice.existing}`,
  }
}

/** The user name and password of a base64 `user:password`; undefined when it holds no colon. */
export function parseBasicAuth(
  encoded: string,
): { username: string; password: string } | undefined {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return undefined
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}
