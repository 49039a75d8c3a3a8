import { join } from 'node:path'
import { readIgnoreFile, type IgnoreMatcher } from '../../dockerfile/dockerignore.js'
import { readBuildInputs, type BuildInputs } from '../../dockerfile/build-inputs.js'
import { errorMessage } from '../../shared/errors.js'
import type { Files } from '../../shared/ports.js'
import { isProblem, type Problem } from '../../shared/problem.js'
import { builderReading, readsAsBuildKit } from '../builders/known-builders.js'
import type { BuilderName } from '../builders/image-builder.js'
import { buildArgsOf, type ImagePlan } from '../plan/plan.js'
import { fingerprintOf, sourceDigest, type SourceDigest } from './fingerprint.js'

/**
 * What an image's fingerprint (fingerprint.ts) covers besides its bases, read and hashed: its
 * Dockerfile, the `.dockerignore` BuildKit applies to it, each context path its build reads,
 * its build arguments, labels and platform, and how the builder reads it otherwise than BuildKit.
 */

type ReuseFiles = Pick<Files, 'linkTarget' | 'stat' | 'hashFile' | 'readText' | 'tree'>

export interface Prepared {
  plan: ImagePlan
  /** SHA-256 of the Dockerfile's bytes, and its text; or why they are not known. */
  dockerfile?: { hash: string; text: string }
  inputs?: BuildInputs
  /** The `.dockerignore` BuildKit applies for it, and its SHA-256 (none: null). */
  ignore?: { path: string; hash: string | null; matcher?: IgnoreMatcher }
  problem?: string
}

/** The Dockerfile the check phase read, what its build reads, and its ignore file. */
export async function prepare(
  plan: ImagePlan,
  read: { text: string; sha256: string } | undefined,
  files: ReuseFiles,
): Promise<Prepared> {
  if (!read) return { plan, problem: `'${plan.dockerfile}' was not read` }
  try {
    const ignore = await ignoreFileOf(plan, files)
    if (isProblem(ignore)) return { plan, problem: ignore.problem }
    return {
      plan,
      dockerfile: { hash: read.sha256, text: read.text },
      inputs: readBuildInputs(read.text, buildArgsOf(plan)),
      ignore,
    }
  } catch (error) {
    return { plan, problem: `its .dockerignore could not be read (${errorMessage(error)})` }
  }
}

/**
 * The ignore file BuildKit applies to this image's context: `<Dockerfile>.dockerignore` when it
 * exists, else the context's `.dockerignore`.
 */
async function ignoreFileOf(
  plan: ImagePlan,
  files: ReuseFiles,
): Promise<NonNullable<Prepared['ignore']> | Problem> {
  const root = plan.command.context
  for (const path of [`${plan.command.dockerfile}.dockerignore`, join(root, '.dockerignore')]) {
    const shown = path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path
    if ((await files.linkTarget(path)) !== undefined)
      return { problem: `'${shown}' is a symbolic link, which this step does not follow` }
    const found = await files.stat(path)
    if (!found) continue
    if (found.kind !== 'file') return { problem: `'${shown}' is not a file` }
    const [hash, text] = await Promise.all([files.hashFile(path), files.readText(path)])
    const rules = readIgnoreFile(text)
    if ('invalid' in rules) return { problem: `BuildKit cannot read '${shown}' (${rules.invalid})` }
    // Not applied: every file of the context counts, more than the build reads.
    return { path: shown, hash, matcher: 'matcher' in rules ? rules.matcher : undefined }
  }
  return { path: '.dockerignore', hash: null }
}

/** What hashing the sources needs, the same for every image of the run. */
export interface SourceHashing {
  files: ReuseFiles
  /** The builder, whose reading of a Dockerfile may differ from BuildKit's (builders/reading.ts). */
  builder: { name: BuilderName; version?: string }
  /** The target platform: the `platform` input, else the builder's. */
  platform: string
  /** Each context path hashed once. */
  sources: Map<string, Promise<SourceDigest>>
}

export interface Hashed {
  parts: Omit<Parameters<typeof fingerprintOf>[0], 'images'>
  summary: string
}

/** SHA-256 of the file at `path`; undefined when no file is there. */
async function hashIfFile(path: string, files: ReuseFiles): Promise<string | undefined> {
  return (await files.stat(path))?.kind === 'file' ? files.hashFile(path) : undefined
}

export async function hashSources(
  image: Prepared,
  inputs: BuildInputs,
  hashing: SourceHashing,
): Promise<Hashed | Problem> {
  const { plan } = image
  const root = plan.command.context
  const { files } = hashing
  const ignore = image.ignore ?? { path: '.dockerignore', hash: null }
  const view = { root, ignore: ignore.matcher, files }
  const digests = await Promise.all(
    inputs.sources.map((source) => {
      // Each image may have an ignore file of its own: a source is hashed once per ignore file.
      const key = `${ignore.path}\0${source}`
      let pending = hashing.sources.get(key)
      if (!pending) {
        pending = sourceDigest(source, view).catch((error: unknown) => ({
          problem: `'${source}' could not be read (${errorMessage(error)})`,
        }))
        hashing.sources.set(key, pending)
      }
      return pending
    }),
  )
  const sources: Array<[string, string | null]> = []
  let count = 0
  for (const [index, source] of inputs.sources.entries()) {
    const digest = digests[index] as SourceDigest
    if (isProblem(digest)) return { problem: digest.problem }
    sources.push([source, digest.digest])
    count += digest.files
  }
  const reading = readsAsBuildKit(hashing.builder.name)
    ? undefined
    : builderReading(hashing.builder, {
        dockerfile: image.dockerfile?.text ?? '',
        images: inputs.images,
        containerignore: await hashIfFile(join(root, '.containerignore'), files),
        // `<Dockerfile>.dockerignore` wins over the context's files, for Buildah too.
        ownIgnoreFile: ignore.hash !== null && ignore.path !== '.dockerignore',
      })
  return {
    parts: {
      dockerfile: image.dockerfile?.hash ?? '',
      ignoreFiles: [[ignore.path, ignore.hash]],
      sources,
      pinned: inputs.pinned,
      buildArgs: buildArgsOf(plan),
      labels: plan.command.labels,
      platform: plan.command.platform ?? hashing.platform,
      ...(reading === undefined ? {} : { builder: reading }),
    },
    summary: `${count.toLocaleString('en-US')} file${count === 1 ? '' : 's'} in ${inputs.sources.join(', ') || 'no context path'}; ${inputs.images.length} image(s) built from: ${inputs.images.join(', ') || 'none'}`,
  }
}
