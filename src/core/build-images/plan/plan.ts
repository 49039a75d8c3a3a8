import { join } from 'node:path'
import { unique } from '../../shared/collections.js'
import {
  BACKEND_NAME_LABEL,
  DRAW_VERSION_LABEL,
  OCI_LABELS,
  SERVED_FILES_LABEL,
  servedFilesLabel,
  type ServedFiles,
} from '../../shared/image-labels.js'
import type { CiContext } from '../../shared/context.js'
import type { ImageKind } from '../../shared/project-images.js'
import type { BuildCommand } from '../builders/build-command.js'
import { imageReference } from './image-names.js'
import type { BuildImagesInputs } from '../inputs.js'
import { sanitiseBranch } from './tags.js'

/** One image to build: where its definition and sources are, and every reference it gets. */
export interface ImagePlan {
  /** Its target's id (`backend:<name>`…): what the log, the outputs and the maps name it by. */
  id: string
  kind: ImageKind
  /** The backend's name, with `backends`. */
  name?: string
  /** The reference reported in outputs: the tag-template one. */
  reference: string
  /** The primary reference first, then one per extra tag. */
  references: string[]
  /**
   * The branch's moving tag (`<image>:<branch>`), pushed too when the images are pushed: where
   * a later run finds the image this run leaves, to reuse it when nothing changed.
   */
  moving?: string
  /** Project-relative, for messages. */
  dockerfile: string
  sources: string
  command: BuildCommand
}

export interface PlanFacts {
  branch: string
  /** Every tag, as the check phase rendered them (checkBuildImages). */
  tags: readonly string[]
  drawVersion?: string
  /** The project's own version (see resolveAppVersion). */
  version?: string
  /** What the frontend serves as built (see servedFiles): the frontend image's label. */
  served?: ServedFiles
  now: Date
}

export function planImages(
  inputs: BuildImagesInputs,
  context: CiContext,
  facts: PlanFacts,
): ImagePlan[] {
  const common = imageLabels(context, facts)
  const served: Array<[string, string]> =
    facts.served && Object.keys(facts.served).length > 0
      ? [[SERVED_FILES_LABEL, servedFilesLabel(facts.served)]]
      : []
  return inputs.targets.map((target) => {
    const { kind, name, dockerfile, sources } = target
    const labels = [
      ...common,
      ...(kind === 'frontend' ? served : []),
      ...(name === undefined ? [] : [[BACKEND_NAME_LABEL, name] as [string, string]]),
    ]
    const image = (tag: string): string => imageReference(inputs.registry, target.imageName, tag)
    const references = facts.tags.map(image)
    const moving = inputs.push ? image(movingTag(facts.branch)) : undefined
    const cache = image(CACHE_TAG)
    return {
      id: target.id,
      kind,
      ...(name === undefined ? {} : { name }),
      reference: references[0] ?? '',
      references,
      ...(moving ? { moving } : {}),
      dockerfile,
      sources,
      command: {
        dockerfile: join(inputs.workingDirectory, dockerfile),
        context: inputs.workingDirectory,
        sourcesPath: sources,
        tags: moving ? unique([...references, moving]) : references,
        buildArgs: inputs.buildArgs,
        labels,
        platform: inputs.platform,
        cacheFrom: inputs.cacheFrom,
        secrets: inputs.buildSecrets,
        // A branch named like the cache's tag would overwrite it: no registry cache then.
        ...(inputs.push && ![...references, moving].includes(cache)
          ? { registryCache: cache }
          : {}),
      },
    }
  })
}

/** The tag of the registry cache a builder that pushes itself reads and writes. */
export const CACHE_TAG = 'buildcache'

/** `<branch>` made a valid tag, as `{branch}` is (and as docker/metadata-action makes it). */
export function movingTag(branch: string): string {
  return sanitiseBranch(branch)
}

export function imageLabels(context: CiContext, facts: PlanFacts): Array<[string, string]> {
  const labels: Array<[string, string]> = []
  if (facts.drawVersion) labels.push([DRAW_VERSION_LABEL, facts.drawVersion])
  if (facts.version) labels.push([OCI_LABELS.version, facts.version])
  if (context.repositoryUrl) labels.push([OCI_LABELS.source, context.repositoryUrl])
  if (context.sha) labels.push([OCI_LABELS.revision, context.sha])
  labels.push([OCI_LABELS.created, facts.now.toISOString()])
  return labels
}

/** SOURCES_PATH first, then the `build-args`, as the build gets them. */
export function buildArgsOf(plan: ImagePlan): Array<[string, string]> {
  return [
    ['SOURCES_PATH', plan.command.sourcesPath],
    ...plan.command.buildArgs.map(([n, v]): [string, string] => [n, v]),
  ]
}
