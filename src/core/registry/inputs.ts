import type { InputSchema, SecretParts } from '../definition.js'
import { basicAuth } from '../shared/http.js'
import { text, type InputProblems } from '../shared/inputs.js'
import { isProblem } from '../shared/problem.js'
import {
  loginFromInputs,
  registryInput,
  type LoginAdvice,
  type RegistryLogin,
  type RegistryTarget,
} from './credentials.js'
import { registryName } from './reference.js'

/**
 * `registry`, `registry-username` and `registry-password`: one registry and its login, written
 * once for every action that takes them. `registry` is the same concept in each (`host[:port]`,
 * optionally a namespace; the login goes to that host only); each action says after the shared
 * sentence what it does with it.
 */
export function registryInputs(uses: { registry: string; username: string; password: string }): {
  registry: { description: string; parse: InputSchema<RegistryTarget | undefined> }
  'registry-username': { description: string; parse: typeof text.parse }
  'registry-password': {
    description: string
    secret: SecretParts<string | undefined>
    parse: typeof text.parse
  }
} {
  return {
    registry: {
      description: `Container registry, \`host[:port]\` optionally followed by a namespace (\`ghcr.io/acme\`); \`registry-username\` and \`registry-password\` are sent to its host and to no other. ${uses.registry}`,
      parse: registryInput,
    },
    'registry-username': {
      description: `User name of the login to \`registry\`; give it with \`registry-password\`, or neither. ${uses.username}`,
      ...text,
    },
    'registry-password': {
      description: `Password or token of \`registry-username\` (keep it in a secret). ${uses.password}`,
      secret: loginPassword,
      ...text,
    },
  }
}

/**
 * The password, and base64(user:password), which a Docker config stores and registries echo in
 * errors, and which masking the password alone misses at its edges.
 */
export const loginPassword: SecretParts<string | undefined> = {
  whole: true,
  said: 'a password',
  parts: (_password, raw, inputs) => loginForms(inputs['registry-username'] ?? '', raw),
  unparsed: (raw, inputs) => loginForms(inputs['registry-username'] ?? '', raw),
  shown: () => '***',
}

/** The forms of a login that can leak: the password, and its Basic value. */
export function loginForms(username: string, password: string): string[] {
  return password === '' ? [] : [password, basicAuth(username, password)]
}

/**
 * The login of the three inputs, for both actions: `registry` by its one name (Docker Hub's
 * aliases as `docker.io`; its namespace is no part of a login), undefined when no login is given.
 * A problem of the two login inputs is noted in `problems`, in the words of `advice`.
 */
export function registryLogin(
  registry: RegistryTarget | undefined,
  username: string | undefined,
  password: string | undefined,
  problems: InputProblems,
  advice?: LoginAdvice,
): RegistryLogin | undefined {
  const given = loginFromInputs(username, password, advice)
  if (given === undefined) return undefined
  if (isProblem(given)) {
    problems.add(given.input, given.problem)
    return undefined
  }
  return { ...given, registry: registry && registryName(registry.host) }
}
