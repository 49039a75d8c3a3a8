import { DRAW_VERSION_LABEL } from '../shared/image-labels.js'
import type { Summary } from '../shared/ports.js'
import type { BuildFailure, BuiltImage } from './build.js'
import type { BuildImagesOutputName } from './definition.js'
import { type ImageTarget } from './image-kinds.js'
import { IMAGE_KINDS, type ImageKind } from '../shared/project-images.js'

export const CODEASDATA_WARNING =
  'The code-as-data image is built: deploying it updates the composition database, which can briefly interrupt it (the platform documents a short downtime). Deploy it with update mode manual to choose the moment.'

const KIND_LABEL: Record<ImageKind, string> = {
  frontend: 'Frontend',
  backend: 'Backend',
  codeasdata: 'Code as data',
}

/**
 * Every output, always all of them: a later step reads '' rather than a missing value. With
 * `backends`, `backend-image` and `backend-digest` stay empty: `backend-images` and `images`
 * name each backend's.
 */
export function buildOutputs(
  images: readonly BuiltImage[],
  facts: {
    skipped: boolean
    version?: string
    targets: readonly ImageTarget[]
    sbomFolder?: string
  },
): Record<BuildImagesOutputName, string> {
  const outputs = { ...checkedOutputs(facts.targets, facts.skipped) } as Record<
    BuildImagesOutputName,
    string
  >
  outputs.version = facts.version ?? ''
  outputs['sbom-folder'] = facts.sbomFolder ?? ''
  for (const kind of IMAGE_KINDS) {
    const image = images.find((candidate) => candidate.id === kind)
    outputs[`${kind}-image`] = image?.reference ?? ''
    outputs[`${kind}-digest`] = image?.digest ?? ''
  }
  outputs['backend-images'] = images
    .filter((image) => image.kind === 'backend')
    .map((image) => image.reference)
    .join('\n')
  outputs.images = JSON.stringify(
    images.map((image) => ({
      kind: image.kind,
      ...(image.name === undefined ? {} : { name: image.name }),
      reference: image.reference,
      references: image.references,
      digest: image.digest ?? '',
      size: image.size ?? null,
    })),
  )
  outputs.reused = JSON.stringify(images.filter((image) => image.reused).map((image) => image.id))
  return outputs
}

/**
 * What the check phase alone tells (set by `check-only` too): the images a run builds, one
 * `images` value each, for a fan-out's matrix; none when the branch gate skips the run.
 */
export function checkedOutputs(
  targets: readonly ImageTarget[],
  skipped: boolean,
): Record<'matrix' | 'skipped', string> {
  return {
    matrix: JSON.stringify(skipped ? [] : targets.map((target) => target.id)),
    skipped: String(skipped),
  }
}

export interface SummaryFacts {
  branch: string
  pushed: boolean
  drawVersion?: string
  version?: string
  /** The images asked for (`images`, and `codeasdata`); the others are named as not built. */
  selected: readonly ImageKind[]
}

/** `Frontend`, `Backend 'api'`: an image as the summary's rows name it. */
function rowLabel(image: Pick<BuiltImage, 'kind' | 'name'>): string {
  return image.name === undefined
    ? KIND_LABEL[image.kind]
    : `${KIND_LABEL[image.kind]} '${image.name}'`
}

export function builtSummary(images: readonly BuiltImage[], facts: SummaryFacts): Summary {
  const rows: Array<[string, string]> = images.map((image) => [
    rowLabel(image),
    [
      image.references.map((reference) => `\`${reference}\``).join(', '),
      image.digest ? `\`${image.digest}\`` : 'not pushed',
      image.reused
        ? `unchanged since ${image.reused.since} (fingerprint \`${image.reused.fingerprint}\`): tagged, not rebuilt`
        : formatSize(image.size),
    ].join(' · '),
  ])
  rows.push(['Branch', facts.branch])
  rows.push(['Version label', facts.version ?? 'none (no version found)'])
  rows.push([`${DRAW_VERSION_LABEL} label`, facts.drawVersion ?? 'none (no version found)'])
  const notes: string[] = []
  if (!facts.pushed)
    notes.push('push is false: the images were built but not pushed, and have no digests.')
  const reused = images.filter((image) => image.reused)
  if (reused.length > 0)
    notes.push(
      `Not rebuilt, as nothing that goes into ${reused.length === 1 ? 'it' : 'them'} changed: ${reused.map((image) => rowLabel(image).toLowerCase()).join(', ')}. The earlier image${reused.length === 1 ? ' was' : 's were'} given this run's tags; ${reused.length === 1 ? 'its' : 'their'} \`revision\` label names the commit that built ${reused.length === 1 ? 'it' : 'them'}. Set 'reuse-unchanged' to false to build every image.`,
    )
  const left = notSelected(facts.selected)
  if (left.length > 0)
    notes.push(
      `Not built (not named in 'images'; their outputs are empty): ${left.map((kind) => KIND_LABEL[kind].toLowerCase()).join(', ')}.`,
    )
  if (facts.selected.includes('codeasdata')) notes.push(CODEASDATA_WARNING)
  return {
    heading: !facts.pushed
      ? 'Olympe images built (not pushed)'
      : images.length > 0 && reused.length === images.length
        ? 'Olympe images unchanged: tagged, not rebuilt'
        : 'Olympe images built and pushed',
    rows: [['Image', 'Reference · digest · size'], ...rows],
    notes,
  }
}

export function notSelected(selected: readonly ImageKind[]): ImageKind[] {
  return IMAGE_KINDS.filter((kind) => !selected.includes(kind))
}

/**
 * The message of a step whose builds failed: each failure, then what became of each other image,
 * so that one backend's failure does not hide the others' state.
 */
export function failureReport(
  failure: BuildFailure,
  plans: ReadonlyArray<Pick<BuiltImage, 'id'>>,
  done: readonly BuiltImage[],
  push: boolean,
): string {
  const failed = new Set(failure.failed.map(({ plan }) => plan.id))
  const others = plans.filter((plan) => !failed.has(plan.id))
  if (others.length === 0) return failure.message
  const states = others.map(({ id }) => {
    const image = done.find((each) => each.id === id)
    if (failure.unpushed.has(id)) return `${id}: built, not pushed (another image had failed)`
    if (!image) return `${id}: not built (no build starts after a failure)`
    if (image.reused) return `${id}: unchanged, given this run's tags (${image.digest ?? ''})`
    return push ? `${id}: built and pushed (${image.digest ?? ''})` : `${id}: built`
  })
  return `${failure.message}\nThe other images:\n${states.map((state) => `- ${state}`).join('\n')}`
}

export function skippedSummary(reason: string): Summary {
  return {
    heading: 'Olympe images: skipped',
    rows: [['Reason', reason]],
    notes: ['Nothing was built or pushed; the image outputs are empty and skipped is true.'],
  }
}

/** Decimal units, as `docker image ls` shows sizes. */
export function formatSize(bytes: number | undefined): string {
  if (bytes === undefined) return 'size unknown'
  const units = ['B', 'kB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit] ?? 'B'}`
}
