import { isObject } from '../shared/json-text.js'
import type { Problem } from '../shared/problem.js'
import type { Statement } from './statement.js'

/**
 * The source repository a provenance names (`buildDefinition.externalParameters.repository`,
 * docs/provenance.md), and how two addresses of a repository's web page are compared: by host
 * and path, case aside (GitHub and GitLab name a repository case-insensitively), with no
 * trailing slash or `.git`; the scheme and a default port aside.
 */

/** `externalParameters.repository`: the field that names the source repository's web page. */
export const REPOSITORY_FIELD = 'repository'

export const REPOSITORY_EXPECTED =
  "expected the address of a repository's web page, such as 'https://github.com/acme/shop' or 'https://gitlab.example.com/group/project' (no credentials, query or fragment)"

/** A repository's web address as given, checked: http(s), a host and a path, nothing else. */
export function repositoryAddress(raw: string): string | Problem {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { problem: `'${raw}' is not an absolute URL; ${REPOSITORY_EXPECTED}` }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { problem: `'${raw}' is not an http(s) address; ${REPOSITORY_EXPECTED}` }
  if (url.username || url.password || url.search || url.hash)
    return {
      problem: `'${url.host}…' carries credentials, a query or a fragment; ${REPOSITORY_EXPECTED}`,
    }
  if (repositoryKey(url) === `${url.host.toLowerCase()}/`)
    return { problem: `'${raw}' names a host and no repository; ${REPOSITORY_EXPECTED}` }
  return raw
}

/** Whether two addresses name the same repository. */
export function sameRepository(a: string, b: string): boolean {
  try {
    return repositoryKey(new URL(a)) === repositoryKey(new URL(b))
  } catch {
    return false
  }
}

function repositoryKey(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '').replace(/\.git$/, '')
  return `${url.host.toLowerCase()}${path.toLowerCase()}/`.replace(/\/+$/, '/')
}

/** The repository a provenance statement names, or undefined when it names none. */
export function statedRepository(statement: Statement): string | undefined {
  const definition = statement.predicate.buildDefinition
  const external = isObject(definition) ? definition.externalParameters : undefined
  const repository = isObject(external) ? external[REPOSITORY_FIELD] : undefined
  return typeof repository === 'string' && repository !== '' ? repository : undefined
}
