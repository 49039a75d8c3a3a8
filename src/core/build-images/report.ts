import { DRAW_VERSION_LABEL } from '../shared/image-labels.js'
import type { Summary } from '../shared/ports.js'
import type { BuiltImage } from './build.js'
import type { BuildImagesOutputName } from './definition.js'
import { IMAGE_KINDS, type ImageKind } from './image-kinds.js'

export const CODEASDATA_WARNING =
  'The code-as-data image is built: deploying it updates the composition database, which can briefly interrupt it (the platform documents a short downtime). Deploy it with update mode manual to choose the moment.'

const KIND_LABEL: Record<ImageKind, string> = {
  frontend: 'Frontend',
  backend: 'Backend',
  codeasdata: 'Code as data',
}

/** Every output, always all of them: a later step reads '' rather than a missing value. */
export function buildOutputs(
  images: readonly BuiltImage[],
  skipped: boolean,
  version?: string,
  sbomFolder?: string,
): Record<BuildImagesOutputName, string> {
  const outputs = { skipped: String(skipped) } as Record<BuildImagesOutputName, string>
  outputs.version = version ?? ''
  outputs['sbom-folder'] = sbomFolder ?? ''
  for (const kind of IMAGE_KINDS) {
    const image = images.find((candidate) => candidate.kind === kind)
    outputs[`${kind}-image`] = image?.reference ?? ''
    outputs[`${kind}-digest`] = image?.digest ?? ''
  }
  outputs.images = JSON.stringify(
    images.map((image) => ({
      kind: image.kind,
      reference: image.reference,
      references: image.references,
      digest: image.digest ?? '',
      size: image.size ?? null,
    })),
  )
  outputs.reused = JSON.stringify(images.filter((image) => image.reused).map((image) => image.kind))
  return outputs
}

export interface SummaryFacts {
  branch: string
  pushed: boolean
  drawVersion?: string
  version?: string
  /** The images asked for (`images`, and `codeasdata`); the others are named as not built. */
  selected: readonly ImageKind[]
}

export function builtSummary(images: readonly BuiltImage[], facts: SummaryFacts): Summary {
  const rows: Array<[string, string]> = images.map((image) => [
    KIND_LABEL[image.kind],
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
      `Not rebuilt, as nothing that goes into ${reused.length === 1 ? 'it' : 'them'} changed: ${reused.map((image) => KIND_LABEL[image.kind].toLowerCase()).join(', ')}. The earlier image${reused.length === 1 ? ' was' : 's were'} given this run's tags; ${reused.length === 1 ? 'its' : 'their'} \`revision\` label names the commit that built ${reused.length === 1 ? 'it' : 'them'}. Set 'reuse-unchanged' to false to build every image.`,
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
