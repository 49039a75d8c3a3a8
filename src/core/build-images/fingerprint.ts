import { createHash } from 'node:crypto'
import { isAbsolute, join, normalize } from 'node:path'
import { mapLimit } from '../shared/concurrency.js'
import type { Files, TreeEntry } from '../shared/ports.js'
import { OCI_LABELS } from '../shared/image-labels.js'

/**
 * The fingerprint of an image: a digest of everything that goes into it, decided the way
 * BuildKit decides a cache hit but without an engine. Two builds with one fingerprint make the
 * same image, so an image pushed with this run's fingerprint can be given this run's tags
 * instead of being built again.
 */

/** The image label that holds the fingerprint of what the image was built from. */
export const FINGERPRINT_LABEL = 'io.olympe.deploy-actions.fingerprint'
/** The label that names the tag the image was built as: what "unchanged since" names. */
export const BUILT_AS_LABEL = 'io.olympe.deploy-actions.built-as'
/**
 * Changed whenever what the fingerprint covers, or how it is computed, changes: an image
 * labelled by an older version of this step then never matches, and is built again.
 */
export const FINGERPRINT_FORMAT = 'olympe-deploy-actions/fingerprint/1'
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
  /** Each image the build pulls and the digest the registry gives for it. */
  images: Array<[string, string]>
  /** `--build-arg` values in the order given, SOURCES_PATH first. */
  buildArgs: Array<[string, string]>
  labels: ReadonlyArray<readonly [string, string]>
  /** `os/arch[/variant]`: the `platform` input, else the engine's. */
  platform: string
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
    images: [...parts.images].sort(byFirst),
    buildArgs: parts.buildArgs,
    labels,
    platform: parts.platform,
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
 * content (a file's SHA-256, a link's target). File times are left out, as BuildKit leaves them.
 */
export function treeDigest(
  entries: readonly TreeEntry[],
  contents: ReadonlyMap<string, string>,
): string {
  const hash = createHash('sha256')
  for (const entry of entries) {
    const content = entry.kind === 'file' ? (contents.get(entry.path) ?? '') : (entry.target ?? '')
    hash.update(
      `${entry.path}\0${entry.kind}\0${entry.mode.toString(8)}\0${entry.uid}:${entry.gid}\0${content}\n`,
    )
  }
  return `sha256:${hash.digest('hex')}`
}

export type SourceFiles = Pick<Files, 'tree' | 'hashFile' | 'realpath' | 'stat'>

/** A context path's digest, or null when nothing is there; a string problem when it cannot be told. */
export type SourceDigest = { digest: string | null; files: number } | { problem: string }

/**
 * The digest of what a COPY source names in the context: a file or a folder, whole. A source
 * with a wildcard counts the whole folder before its first wildcard: more than the build takes,
 * so a change there may rebuild the image for nothing, but never reuses one that changed.
 */
export async function sourceDigest(
  context: string,
  source: string,
  files: SourceFiles,
): Promise<SourceDigest> {
  const parts = normalize(source.replace(/^\/+/, '') || '.')
    .split('/')
    .filter((part) => part !== '')
  const wildcard = parts.findIndex((part) => WILDCARD.test(part))
  const fixed = wildcard < 0 ? parts : parts.slice(0, wildcard)
  const relative = fixed.join('/') || '.'
  if (relative === '..' || relative.startsWith('../') || isAbsolute(relative))
    return { problem: `'${source}' is outside the build context` }
  const path = join(context, relative)
  if (!(await files.stat(path))) return { digest: null, files: 0 }
  // Never read outside the project: a link that leaves it is the build's problem, not ours.
  const [real, root] = await Promise.all([files.realpath(path), files.realpath(context)])
  if (real !== root && !real.startsWith(`${root}/`))
    return { problem: `'${source}' leads outside the build context through a symbolic link` }
  const entries = (await files.tree(path)) ?? []
  const regular = entries.filter((entry) => entry.kind === 'file')
  const hashes = await mapLimit(regular, HASH_CALLS, (entry) =>
    files.hashFile(entry.path === '' ? path : join(path, entry.path)),
  )
  const contents = new Map(regular.map((entry, index) => [entry.path, hashes[index] ?? '']))
  return { digest: treeDigest(entries, contents), files: regular.length }
}
