import { Unreachable } from '../registry/ask.js'
import { pushBlob, type Blob } from '../registry/blobs.js'
import { getManifest, tagManifest } from '../registry/manifests.js'
import type { RegistrySession } from '../registry/session.js'
import { isObject, jsonValue } from '../shared/json-text.js'
import { appendedManifest, blobOf, existingLayers, type LayerDescriptor } from './cosign-layout.js'

/**
 * The manifests cosign keeps beside an image, under a tag named after its digest: `.sig` for
 * signatures, `.att` for attestations. Both are OCI image manifests whose layers are the signed
 * documents, read whole and written whole (the distribution API has no append), with the layers
 * already there kept.
 */

const IMAGE_MANIFESTS = new Set([
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
])

/** The manifest under a cosign tag, as read: its JSON, and its layers that name a blob. */
export interface CosignManifest {
  document: Record<string, unknown>
  layers: LayerDescriptor[]
}

export type CosignManifestRead =
  CosignManifest | { kind: 'missing' | 'unusable' | 'unauthorised' | 'unreachable'; detail: string }

/**
 * The manifest `tag` names in the session's repository, or why there is none to read; `what`
 * names the manifest in messages ('signature', 'attestation').
 */
export async function readCosignManifest(
  session: RegistrySession,
  tag: string,
  what: string,
): Promise<CosignManifestRead> {
  try {
    const got = await getManifest(session, tag)
    if ('kind' in got) {
      if (got.kind === 'missing')
        return { kind: 'missing', detail: `no '${tag}' in its repository` }
      return { kind: got.kind, detail: `'${tag}': ${got.detail}` }
    }
    if (!IMAGE_MANIFESTS.has(got.mediaType))
      return {
        kind: 'unusable',
        detail: `'${tag}' is a '${got.mediaType || 'manifest of no media type'}', not a ${what} manifest`,
      }
    const document = jsonValue(got.body)
    if (!isObject(document)) return { kind: 'unusable', detail: `'${tag}' is not a JSON manifest` }
    return { document, layers: existingLayers(document) ?? [] }
  } catch (error) {
    if (error instanceof Unreachable) return { kind: 'unreachable', detail: error.message }
    throw error
  }
}

/**
 * Writes `added` (each layer with the blob it names) after the layers of `existing` under
 * `tag`: the blobs, the configuration, then the manifest, in one PUT. Undefined once the tag
 * names the new manifest, else why not. A layer another job adds between the read and the write
 * is lost, as with cosign: writing is safe to run again.
 */
export async function appendToCosignManifest(
  session: RegistrySession,
  tag: string,
  existing: Record<string, unknown> | undefined,
  added: ReadonlyArray<{ blob: Blob; layer: LayerDescriptor }>,
  words: { blob: string; manifest: string },
): Promise<string | undefined> {
  for (const { blob } of added) {
    const problem = await pushBlob(session, blob)
    if (problem) return `uploading the ${words.blob} failed: ${problem}`
  }
  const manifest = appendedManifest(existing, ...added.map(({ layer }) => layer))
  const configProblem = await pushBlob(session, manifest.config)
  if (configProblem)
    return `uploading the ${words.manifest} manifest's configuration failed: ${configProblem}`
  const written = blobOf(manifest.text)
  const tagProblem = await tagManifest(
    session,
    { body: manifest.text, mediaType: manifest.mediaType, digest: written.digest },
    tag,
  )
  return tagProblem ? `writing '${tag}' failed: ${tagProblem}` : undefined
}
