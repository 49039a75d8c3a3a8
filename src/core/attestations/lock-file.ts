import { createHash } from 'node:crypto'
import { isObject, parseJsonText } from '../shared/json-text.js'
import { isProblem, type Problem } from '../shared/problem.js'

/**
 * npm's lock file (package-lock.json or npm-shrinkwrap.json), lockfileVersion 2 or 3
 * (https://docs.npmjs.com/cli/configuring-npm/package-lock-json): its `packages` map, keyed by
 * the folder each package is installed in (`node_modules/@scope/name`, nested
 * `node_modules/a/node_modules/b`), the root project under `""`. What an image's build may ship
 * is every package that is not development-only (`dev: true`); `devOptional` ones may be
 * installed in production as an optional dependency of another, so they count.
 */

export interface LockedPackage {
  name: string
  version: string
  /** Subresource Integrity, as npm writes it: `sha512-<base64>` (several, space-separated). */
  integrity?: string
}

export interface LockFile {
  /** The path as given, relative to the workspace: `package-lock.json`. */
  path: string
  /** `sha256:<hex>` of its bytes, as read. */
  digest: string
  /** The packages a build may ship, sorted by name then version, each once. */
  packages: LockedPackage[]
}

const NODE_MODULES = 'node_modules/'

/** The lock file's text, read; or why it cannot say what is shipped. */
export function readLockFile(path: string, text: string): LockFile | Problem {
  const parsed = parseJsonText(text)
  if (isProblem(parsed)) return { problem: `'${path}' is ${parsed.problem}` }
  const document = parsed.value
  if (!isObject(document)) return { problem: `'${path}' is not a JSON object` }
  const version = document.lockfileVersion
  if (version !== 2 && version !== 3)
    return {
      problem: `'${path}' has lockfileVersion ${version === undefined ? 'missing' : JSON.stringify(version)}, and only versions 2 and 3 list their packages ('packages'); write it again with npm 7 or newer (\`npm install --package-lock-only\`)`,
    }
  if (!isObject(document.packages)) return { problem: `'${path}' has no 'packages' object` }
  const found = new Map<string, LockedPackage>()
  for (const [folder, entry] of Object.entries(document.packages)) {
    const locked = shipped(folder, entry)
    if (locked) found.set(`${locked.name}@${locked.version}`, locked)
  }
  const packages = [...found.values()].sort(
    (a, b) => compare(a.name, b.name) || compare(a.version, b.version),
  )
  return {
    path,
    digest: `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`,
    packages,
  }
}

/** The package installed in `folder`, unless it is the project, a link, or development-only. */
function shipped(folder: string, entry: unknown): LockedPackage | undefined {
  const at = folder.lastIndexOf(NODE_MODULES)
  if (at < 0 || !isObject(entry) || entry.dev === true || entry.link === true) return undefined
  // An alias (`"x": "npm:y@1"`) is installed under its alias's folder and names the package.
  const name = typeof entry.name === 'string' ? entry.name : folder.slice(at + NODE_MODULES.length)
  const { version, integrity } = entry
  if (typeof version !== 'string' || version === '' || name === '') return undefined
  return { name, version, ...(typeof integrity === 'string' ? { integrity } : {}) }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
