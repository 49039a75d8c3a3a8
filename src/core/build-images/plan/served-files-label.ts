import { join } from 'node:path'
import { isServedPath, MAX_SERVED_FILES, type ServedFiles } from '../../shared/image-labels.js'
import type { Files } from '../../shared/ports.js'

/** The files every Olympe frontend serves at its root (the project template's build writes them). */
const ROOT_FILES = ['version.json', 'index.html']
/** An index.html larger than this is not read for its scripts. */
const MAX_INDEX_BYTES = 1024 * 1024

export interface ServedFilesFound {
  files: ServedFiles
  /** Scripts of index.html left out, and why: for the log. */
  notes: string[]
}

/**
 * The digests of what the frontend serves as it was built: `version.json`, `index.html`, and each
 * script `index.html` loads from the app itself (the template's `main.js?v=<version>`, which is
 * not content-hashed, so that a new build with the same version changes only its bytes). The
 * rollout watch compares what the app serves with them when the version did not change. Only
 * regular files inside the sources folder count: a link could point anywhere.
 */
export async function servedFiles(
  root: string,
  sources: string,
  files: Pick<Files, 'stat' | 'realpath' | 'readText' | 'hashFile'>,
): Promise<ServedFilesFound> {
  const folder = join(root, sources)
  const inside = await files.realpath(folder).catch(() => undefined)
  if (inside === undefined) return { files: {}, notes: [] }
  const regular = async (path: string): Promise<string | undefined> => {
    // No link on the way: the real path is the path itself below the real folder.
    const real = await files.realpath(join(folder, path)).catch(() => undefined)
    if (real !== join(inside, path)) return undefined
    const found = await files.stat(real)
    return found?.kind === 'file' ? real : undefined
  }
  const notes: string[] = []
  const paths = [...ROOT_FILES]
  const index = await regular('index.html')
  if (index && ((await files.stat(index))?.size ?? 0) <= MAX_INDEX_BYTES) {
    const scripts = scriptPaths(await files.readText(index))
    notes.push(...scripts.notes)
    paths.push(...scripts.paths.filter((path) => !paths.includes(path)))
  }
  const found: ServedFiles = {}
  for (const path of paths.slice(0, MAX_SERVED_FILES)) {
    const file = await regular(path)
    if (file) found[path] = `sha256:${await files.hashFile(file)}`
    else if (!ROOT_FILES.includes(path))
      notes.push(`${sources}/${path}, which index.html loads, is not a file of its own there`)
  }
  if (paths.length > MAX_SERVED_FILES)
    notes.push(
      `index.html loads more than ${MAX_SERVED_FILES - ROOT_FILES.length} scripts: the first are kept`,
    )
  return { files: found, notes }
}

/**
 * The scripts an HTML page loads from its own site, as paths below its folder: `src` of each
 * `<script>`, without its query or fragment. Scripts from another site, and paths that leave the
 * folder, are left out.
 */
export function scriptPaths(html: string): { paths: string[]; notes: string[] } {
  const paths: string[] = []
  const notes: string[] = []
  const page = html.replace(/<!--[\s\S]*?-->/g, '')
  for (const [, attributes = ''] of page.matchAll(/<script\b([^>]*)>/gi)) {
    const src = /(?:^|\s)src\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i.exec(attributes)
    const raw = (src?.[1] ?? src?.[2] ?? src?.[3] ?? '').trim()
    if (raw === '' || /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(raw)) continue
    const path = raw.replace(/[?#].*$/, '').replace(/^(?:\.\/|\/)+/, '')
    if (!isServedPath(path)) {
      notes.push(
        `index.html loads ${JSON.stringify(raw.slice(0, 80))}, not a path below its folder`,
      )
      continue
    }
    if (!paths.includes(path)) paths.push(path)
  }
  return { paths, notes }
}
