import * as v from 'valibot'
import type { InputSchema, ParseTools } from '../definition.js'
import { quote } from '../shared/errors.js'
import { jsonOrYamlInput, parseJsonOrYaml } from '../shared/inputs.js'
import { describeIssues, shortReceived, type IssueWording } from '../shared/issues.js'
import { isProblem, type Problem } from '../shared/problem.js'
import { BACKEND_NAME_EXPECTED, isBackendName } from '../shared/project-images.js'
import { projectPath } from './project-paths.js'

/**
 * `backends`: several backends with code bases of their own, each built into an image of its own
 * (`<backend-image-name>-<name>`) that deploy rules then give to the backend of that name.
 */

/** One backend of `backends`, its paths checked to stay in the project. */
export interface NamedBackend {
  name: string
  /** Its build output, relative to `working-directory`: its `SOURCES_PATH`. */
  sources: string
  /** Relative to `working-directory`; unset: `<docker-folder>/backend.Dockerfile`. */
  dockerfile?: string
}

/** As many as a GitHub matrix runs legs: a fan-out gives each backend a leg of its own. */
export const MAX_BACKENDS = 256

const EXAMPLE = `'[{"name": "api", "sources": "dist/api"}, {"name": "worker", "sources": "dist/worker", "dockerfile": "docker/worker.Dockerfile"}]'`

const got =
  (expected: string) =>
  (issue: v.BaseIssue<unknown>): string =>
    `expected ${expected}, got ${shortReceived(issue.received)}`

const BackendSchema = v.strictObject({
  name: v.string(got('a string')),
  sources: v.string(got('a string')),
  dockerfile: v.optional(v.string(got('a string'))),
})

const WORDING: IssueWording = {
  keys: { '': ['name', 'sources', 'dockerfile'] },
  missing: {
    name: 'the name the platform knows the backend by, which deploy rules target',
    sources: "the folder of the backend's build output, relative to 'working-directory'",
  },
}

function parseBackends(raw: string, parseYaml: ParseTools['parseYaml']): NamedBackend[] | Problem {
  const parsed = parseJsonOrYaml(raw, parseYaml)
  if (isProblem(parsed)) return parsed
  const { document } = parsed
  if (!Array.isArray(document))
    return {
      problem: `expected a list of {name, sources, dockerfile} backends, such as ${EXAMPLE}`,
    }
  if (document.length === 0)
    return {
      problem:
        "lists no backend; expected at least one {name, sources}, or leave it empty to build one backend from 'backend-sources'",
    }
  if (document.length > MAX_BACKENDS)
    return {
      problem: `lists ${document.length} backends; expected at most ${MAX_BACKENDS}, as many as a GitHub matrix runs`,
    }
  const result = v.safeParse(v.array(BackendSchema), document)
  if (!result.success) return { problem: describeIssues(result.issues, WORDING).join('; ') }
  const problems: string[] = []
  const seen = new Map<string, number>()
  const listed = result.output.map((entry, index): NamedBackend => {
    const at = `at [${index}]`
    const named = `backend ${quote(entry.name)}`
    if (!isBackendName(entry.name))
      problems.push(
        `${at}.name: ${named} is not a name the platform can hold; expected ${BACKEND_NAME_EXPECTED}`,
      )
    const before = seen.get(entry.name)
    if (before !== undefined)
      problems.push(
        `${at}.name: ${named} is listed at [${before}] already; expected each name once`,
      )
    else seen.set(entry.name, index)
    const path = (key: 'sources' | 'dockerfile', value: string, what: string): string => {
      const found = projectPath(value, what)
      if (!isProblem(found)) return found
      problems.push(`${at}.${key} (${named}): ${found.problem}`)
      return value
    }
    const sources = path('sources', entry.sources, "backend's build output folder")
    if (entry.dockerfile === undefined) return { name: entry.name, sources }
    return {
      name: entry.name,
      sources,
      dockerfile: path('dockerfile', entry.dockerfile, "backend's Dockerfile"),
    }
  })
  return problems.length > 0 ? { problem: problems.join('; ') } : listed
}

/** `backends`, in JSON or YAML. */
export const backends: (tools: ParseTools) => InputSchema<NamedBackend[] | undefined> =
  jsonOrYamlInput(parseBackends)
