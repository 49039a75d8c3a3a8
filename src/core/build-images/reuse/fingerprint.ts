import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { mapLimit } from '../../shared/concurrency.js'
import type { Files, TreeEntry } from '../../shared/ports.js'
import { BUILT_AS_LABEL, FINGERPRINT_LABEL, OCI_LABELS } from '../../shared/image-labels.js'
import type { IgnoreMatcher, MatchInfo } from '../../dockerfile/dockerignore.js'
import type { Problem } from '../../shared/problem.js'

/**
 * The fingerprint of an image: a digest of everything that goes into it, decided the way
 * BuildKit decides a cache hit but without an engine. Two builds with one fingerprint make the
 * same image, so an image pushed with this run's fingerprint can be given this run's tags
 * instead of being built again.
 */

/**
 * Changed whenever what the fingerprint covers, or how it is computed, changes: an image
 * labelled by an older version of this step then never matches, and is built again.
 */
export const FINGERPRINT_FORMAT = 'olympe-deploy-actions/fingerprint/2'
/** Labels that change with every run whatever the image holds: not part of the fingerprint. */
const UNCOUNTED_LABELS = new Set<string>([
  OCI_LABELS.created,
  OCI_LABELS.revision,
  FINGERPRINT_LABEL,
  BUILT_AS_LABEL,
])
/** Files hashed at once: enough to keep the disk busy; more only adds contention. */
const HASH_CALLS = 8
const WILDCARD = /[*?[]/

/** Everything that goes into one image, each part already reduced to digests. */
export interface FingerprintParts {
  /** SHA-256 of the Dockerfile's bytes. */
  dockerfile: string
  /** The `.dockerignore` files BuildKit reads for this Dockerfile: SHA-256, or null when absent. */
  ignoreFiles: Array<[string, string | null]>
  /** Each context path the build reads, as written, and the digest of its tree (null: absent). */
  sources: Array<[string, string | null]>
  /** `ADD --checksum=<digest> <url>`: each URL with the digest that pins what it downloads. */
  pinned: readonly string[]
  /** Each image the build pulls and the digest the registry gives for it. */
  images: Array<[string, string]>
  /** `--build-arg` values in the order given, SOURCES_PATH first. */
  buildArgs: Array<[string, string]>
  labels: ReadonlyArray<readonly [string, string]>
  /** `os/arch[/variant]`: the `platform` input, else the builder's. */
  platform: string
  /**
   * How the builder reads this Dockerfile when not as BuildKit does (see builders/reading.ts);
   * absent otherwise, so that BuildKit and Buildah share the fingerprint where they read alike.
   */
  builder?: string
}

/** `sha256:<hex>` of the parts, serialised with its format version. */
export function fingerprintOf(parts: FingerprintParts): string {
  const labels = parts.labels
    .filter(([name]) => !UNCOUNTED_LABELS.has(name))
    .map(([name, value]) => [name, value])
    .sort(byFirst)
  const document = JSON.stringify({
    format: FINGERPRINT_FORMAT,
    dockerfile: parts.dockerfile,
    ignoreFiles: parts.ignoreFiles,
    sources: parts.sources,
    pinned: [...parts.pinned].sort(),
    images: [...parts.images].sort(byFirst),
    buildArgs: parts.buildArgs,
    labels,
    platform: parts.platform,
    ...(parts.builder === undefined ? {} : { builder: parts.builder }),
  })
  return `sha256:${createHash('sha256').update(document).digest('hex')}`
}

/** Pairs in the order of their first element, by code unit: the same on every machine. */
function byFirst(a: readonly string[], b: readonly string[]): number {
  const [x = '', y = ''] = [a[0], b[0]]
  return x < y ? -1 : x > y ? 1 : 0
}

/**
 * The digest of a tree as BuildKit copies it: each entry's path, kind, mode, owner, and its
 * content (a file's SHA-256; a link's target, and the digest of what the target holds). File
 * times are left out, as the fingerprint's promise is the files' content.
 */
export function treeDigest(
  entries: readonly TreeEntry[],
  contents: ReadonlyMap<string, string>,
): string {
  const hash = createHash('sha256')
  for (const entry of entries) {
    const content =
      entry.kind === 'file'
        ? (contents.get(entry.path) ?? '')
        : `${entry.target ?? ''}${entry.kind === 'link' ? `\0${contents.get(entry.path) ?? ''}` : ''}`
    hash.update(
      `${entry.path}\0${entry.kind}\0${entry.mode.toString(8)}\0${entry.uid}:${entry.gid}\0${content}\n`,
    )
  }
  return `sha256:${hash.digest('hex')}`
}

export type SourceFiles = Pick<Files, 'tree' | 'hashFile' | 'linkTarget' | 'stat'>

/** A context path's digest, or null when nothing is there; a string problem when it cannot be told. */
export type SourceDigest = { digest: string | null; files: number } | Problem

/** What the build context holds, as BuildKit's copy of it does. */
export interface ContextView {
  root: string
  /** The `.dockerignore` in force, if any: what it leaves out never reaches a build. */
  ignore?: IgnoreMatcher
  files: SourceFiles
}

/** Links followed at most, for one source, before saying so (BuildKit stops at 255 per path). */
const MAX_LINKS = 255

/**
 * The digest of what a COPY source names in the context: a file or a folder, whole, less what
 * the `.dockerignore` leaves out. A source with a wildcard counts the whole folder before its
 * first wildcard: more than the build takes, so a change there may rebuild the image for
 * nothing, but never reuses one that changed. Links are followed as BuildKit follows them: the
 * source's own path, and each link below it (BuildKit follows a link a wildcard matched), within
 * the context, an absolute target or a `..` stopping at its root.
 */
export async function sourceDigest(source: string, view: ContextView): Promise<SourceDigest> {
  const parts = source.split('/').filter((part) => part !== '' && part !== '.')
  const wildcard = parts.findIndex((part) => WILDCARD.test(part))
  const fixed = (wildcard < 0 ? parts : parts.slice(0, wildcard)).join('/') || '.'
  const state: WalkState = { links: 0, visited: new Set(), files: 0 }
  try {
    const digest = await contextTreeDigest(fixed, view, state)
    return { digest, files: state.files }
  } catch (error) {
    if (error instanceof TooManyLinks)
      return { problem: `'${source}' leads through more than ${MAX_LINKS} symbolic links` }
    throw error
  }
}

class TooManyLinks extends Error {}

interface WalkState {
  links: number
  /** Resolved paths already hashed for this source: a link cycle ends there. */
  visited: Set<string>
  files: number
}

/** The digest of what `path` (context-relative) holds once its links are resolved; null: nothing. */
async function contextTreeDigest(
  path: string,
  view: ContextView,
  state: WalkState,
): Promise<string | null> {
  const resolved = await rootPath(path, view, state)
  if (state.visited.has(resolved)) return `cycle:${resolved}`
  state.visited.add(resolved)
  const matched = view.ignore && resolved !== '.' ? view.ignore.walk(resolved) : undefined
  if (matched?.ignored && !view.ignore?.hasExclusions()) return null
  const absolute = resolved === '.' ? view.root : join(view.root, resolved)
  const below = await view.files.tree(absolute)
  if (!below) return null
  let entries = view.ignore ? keep(below, resolved, view.ignore, matched?.info ?? []) : below
  if (matched?.ignored) {
    // Left out itself: only what a `!` pattern lets through again below it reaches the build.
    entries = entries.filter((entry) => entry.path !== '')
    if (entries.length === 0) return null
  }
  const contents = new Map<string, string>()
  const regular = entries.filter((entry) => entry.kind === 'file')
  const hashes = await mapLimit(regular, HASH_CALLS, (entry) =>
    view.files.hashFile(entry.path === '' ? absolute : join(absolute, entry.path)),
  )
  regular.forEach((entry, index) => contents.set(entry.path, hashes[index] ?? ''))
  state.files += regular.length
  for (const entry of entries.filter((found) => found.kind === 'link')) {
    const inContext = resolved === '.' ? entry.path : `${resolved}/${entry.path}`
    contents.set(entry.path, (await contextTreeDigest(inContext, view, state)) ?? 'absent')
  }
  return treeDigest(entries, contents)
}

/**
 * The entries a `.dockerignore` lets through, each matched with its folder's result; `baseInfo`
 * is what `base` itself matched.
 */
function keep(
  entries: readonly TreeEntry[],
  base: string,
  ignore: IgnoreMatcher,
  baseInfo: MatchInfo,
): TreeEntry[] {
  const infos = new Map<string, MatchInfo>()
  const prefix = (path: string): string => (base === '.' ? path : `${base}/${path}`)
  return entries.filter((entry) => {
    if (entry.path === '') return true
    const at = entry.path.lastIndexOf('/')
    const parent = at < 0 ? baseInfo : (infos.get(entry.path.slice(0, at)) ?? baseInfo)
    const { ignored, info } = ignore.matches(prefix(entry.path), parent)
    infos.set(entry.path, info)
    return !ignored
  })
}

/**
 * continuity's fs.RootPath: `path` with every link on it resolved inside the context, an
 * absolute target starting again at the context's root and `..` never leaving it.
 */
async function rootPath(path: string, view: ContextView, state: WalkState): Promise<string> {
  const queue = path.split('/').filter((part) => part !== '' && part !== '.')
  const done: string[] = []
  while (queue.length > 0) {
    const part = queue.shift() as string
    if (part === '..') {
      done.pop()
      continue
    }
    const target = await view.files.linkTarget(join(view.root, ...done, part))
    if (target === undefined) {
      done.push(part)
      continue
    }
    if (++state.links > MAX_LINKS) throw new TooManyLinks()
    if (target.startsWith('/')) done.length = 0
    queue.unshift(...target.split('/').filter((piece) => piece !== '' && piece !== '.'))
  }
  return done.join('/') || '.'
}
