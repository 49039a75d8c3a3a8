import type { ServedFiles } from '../shared/image-labels.js'
import type { Serving, VersionAnswer } from './rollout.js'
import { compareFiles, listed, type FileAnswer } from './served.js'

/**
 * What makes `live` true: evidence that the app now serves what this pipeline built, rather than
 * what it served before the call. The version is evidence when it changed. When it did not (the
 * official template has no version-bump script), the files the frontend serves are: their
 * digests as built are the frontend image's served-files label, and the app's `main.js`, which
 * the template does not content-hash, changes with every build of new code. Where neither can
 * tell, the rollout is at best `unverified`.
 */

/** What this deployment's frontend serves, as far as the step knows it. */
export interface ThisBuild {
  version?: string
  /** The digests of the served-files label. */
  files?: ServedFiles
  /** Why the version is unknown, for messages. */
  versionUnknown?: string
  /** Why the files are unknown, for messages. */
  filesUnknown?: string
  /** The frontend image's labels were read (so a label missing is missing from the image). */
  labelsRead?: boolean
}

/** What a target served before the call. */
export interface Before {
  version: VersionAnswer
  /** Read only when the version alone cannot tell (see filesNeeded). */
  files?: Record<string, FileAnswer>
}

export type NoEvidence = 'unknown-version' | 'same-version' | 'same-files' | 'files-unreadable'

export type Evidence =
  /** The version changed (or none was served before): the expected version is this build. */
  | { kind: 'version' }
  /** The version did not change, these files did: this build's files are this build. */
  | { kind: 'files'; paths: string[]; differ: string[] }
  | { kind: 'none'; why: NoEvidence; detail: string }

/** Whether the files must be read before the call: the version will not tell, and they might. */
export function filesNeeded(build: ThisBuild, before: VersionAnswer): boolean {
  if (!build.files) return false
  return build.version === undefined || sameVersion(build, before)
}

function sameVersion(build: ThisBuild, before: VersionAnswer): boolean {
  return before.kind === 'version' && before.version === build.version
}

/** What can show, for one target, that it serves this build; decided before the call. */
export function planEvidence(build: ThisBuild, before: Before): Evidence {
  if (build.version !== undefined && !sameVersion(build, before.version)) return { kind: 'version' }
  if (!build.files) {
    return build.version === undefined
      ? { kind: 'none', why: 'unknown-version', detail: build.versionUnknown ?? 'not known' }
      : { kind: 'none', why: 'same-version', detail: build.filesUnknown ?? 'not read' }
  }
  const paths = Object.keys(build.files)
  // Served nothing before the call: whatever comes is new, as with a version.
  if (before.version.kind === 'none') return { kind: 'files', paths, differ: paths }
  const answers = before.files ?? {}
  const readable = paths.filter((path) => answers[path]?.kind === 'read')
  const { differ } = compareFiles(
    build.files,
    Object.fromEntries(readable.map((path) => [path, answers[path] as FileAnswer])),
  )
  if (differ.length > 0) return { kind: 'files', paths: readable, differ }
  if (readable.length === 0) {
    const failed = paths
      .map((path) => answers[path])
      .filter((answer): answer is Extract<FileAnswer, { kind: 'none' }> => answer?.kind === 'none')
      .map((answer) => answer.detail)
    return {
      kind: 'none',
      why: 'files-unreadable',
      detail: failed.join('; ') || 'nothing was read',
    }
  }
  return { kind: 'none', why: 'same-files', detail: listed(readable) }
}

/** One poll's answer, judged against this build: what the rollout judge counts. */
export function classify(
  build: ThisBuild,
  evidence: Evidence,
  version: VersionAnswer,
  files?: Record<string, FileAnswer>,
): Serving {
  if (version.kind === 'none') return version
  const served = version.version
  const versionMatches = build.version === undefined || build.version === served
  if (evidence.kind === 'version')
    return { kind: versionMatches ? 'build' : 'other', version: served }
  if (evidence.kind === 'files') {
    if (!versionMatches) return { kind: 'other', version: served }
    const compared = compareFiles(build.files ?? {}, files ?? {})
    const down = compared.unread.find((file) => file.transient)
    if (down) return { kind: 'none', detail: down.detail, transient: true }
    if (compared.match)
      return { kind: 'build', version: served, files: `${listed(evidence.paths)} as built` }
    const other = [
      ...compared.differ.map((path) => `another build's ${path}`),
      ...compared.unread.map((file) => file.detail),
    ]
    return { kind: 'other', version: served, files: listed(other) }
  }
  if (build.version === undefined) return { kind: 'any', version: served }
  return versionMatches ? { kind: 'same', version: served } : { kind: 'other', version: served }
}
