import { createHash } from 'node:crypto'
import { ComponentType, HashAlgorithm } from '@cyclonedx/cyclonedx-library/Enums'
import { Bom, Component, HashDictionary, Metadata } from '@cyclonedx/cyclonedx-library/Models'
import { JSON as CdxJson, JsonSerializer } from '@cyclonedx/cyclonedx-library/Serialize'
import { Spec1dot6 } from '@cyclonedx/cyclonedx-library/Spec'
import { PackageURL } from 'packageurl-js'
import { parseImageReference } from '../shared/image-ref.js'
import type { AttestationFacts, BaseImage } from './facts.js'
import type { LockedPackage } from './lock-file.js'

/**
 * The CycloneDX SBOM (specification 1.6) of one image: the image itself as the BOM's subject,
 * its base images as container components with their digests, the npm packages its build may
 * ship (the lock file's, development-only ones left out) with `pkg:npm` purls and their
 * integrity as hashes, and Draw's version for the images Draw builds. The model and its
 * serialisation are OWASP's CycloneDX library's; purls are packageurl-js's, which encodes a
 * scope as the spec says (`pkg:npm/%40olympeio/draw@2.11.3`). Both are large: this module is
 * loaded only where an SBOM is made (see CycloneDxWriter), never on deploy's path.
 */

/** The images Draw builds, whose SBOM names its version. */
export const DRAW_IMAGES: readonly string[] = ['frontend', 'codeasdata']
export const DRAW_PACKAGE = '@olympeio/draw'

/** The image an SBOM describes: its reference and the digest of its manifest. */
export interface SbomSubject {
  reference: string
  digest: string
}

/** Makes an SBOM's JSON text; the attestations take it as a port (see attach.ts). */
export type CycloneDxWriter = (subject: SbomSubject, facts: AttestationFacts) => string

/** The SBOM of `subject` as CycloneDX 1.6 JSON. */
export const cycloneDxSbom: CycloneDxWriter = (subject, facts) => {
  const { image, run, tool } = facts
  const bom = new Bom({
    serialNumber: serialNumber(subject, run.finishedOn),
    metadata: new Metadata({
      timestamp: run.finishedOn,
      component: imageComponent(subject, image.image),
    }),
  })
  bom.metadata.tools.components.add(
    new Component(ComponentType.Application, tool.name, { version: tool.version }),
  )
  for (const base of image.baseImages) bom.components.add(baseImageComponent(base))
  const packages = [...(image.lockFile?.packages ?? [])]
  if (image.drawVersion && DRAW_IMAGES.includes(image.image))
    if (!packages.some((each) => each.name === DRAW_PACKAGE && each.version === image.drawVersion))
      packages.push({ name: DRAW_PACKAGE, version: image.drawVersion })
  for (const locked of packages) bom.components.add(npmComponent(locked))
  const serializer = new JsonSerializer(new CdxJson.Normalize.Factory(Spec1dot6))
  return serializer.serialize(bom, { sortLists: true })
}

/** The image itself, the BOM's subject: a container, by its repository and digest. */
function imageComponent(subject: SbomSubject, image: string): Component {
  const purl = ociPurl(subject.reference, subject.digest)
  return new Component(ComponentType.Container, repositoryOf(subject.reference), {
    bomRef: purl,
    version: subject.digest,
    purl,
    description: `The ${image} image of the project`,
    hashes: manifestHash(subject.digest),
  })
}

function baseImageComponent(base: BaseImage): Component {
  const purl = ociPurl(base.reference, base.digest)
  return new Component(ComponentType.Container, repositoryOf(base.reference), {
    bomRef: purl,
    version: base.digest,
    purl,
    description: `Base image '${base.reference}'`,
    hashes: manifestHash(base.digest),
  })
}

function npmComponent(locked: LockedPackage): Component {
  const scoped = /^(@[^/]+)\/(.+)$/.exec(locked.name)
  const [group, name] = scoped ? [scoped[1], scoped[2] ?? ''] : [undefined, locked.name]
  const purl = new PackageURL('npm', group, name, locked.version, undefined, undefined).toString()
  return new Component(ComponentType.Library, name, {
    bomRef: purl,
    ...(group ? { group } : {}),
    version: locked.version,
    purl,
    hashes: integrityHashes(locked.integrity),
  })
}

/**
 * The purl of an image (`pkg:oci/<name>@sha256%3A…?repository_url=<registry>/<path>&tag=<tag>`),
 * as the purl spec's `oci` type writes one: the name is the repository's last part.
 */
function ociPurl(reference: string, digest: string): string {
  const parsed = parseImageReference(reference)
  const repository = repositoryOf(reference)
  const name = repository.slice(repository.lastIndexOf('/') + 1)
  const tag = typeof parsed === 'string' ? undefined : parsed.tag
  const qualifiers = { repository_url: repository, ...(tag ? { tag } : {}) }
  return new PackageURL('oci', undefined, name, digest, qualifiers, undefined).toString()
}

/** `<registry>/<path>` of a reference, Docker Hub's as `docker.io/…`; the reference itself if unparsable. */
function repositoryOf(reference: string): string {
  const parsed = parseImageReference(reference)
  if (typeof parsed === 'string') return reference
  return `${parsed.domain ?? 'docker.io'}/${parsed.path}`
}

function manifestHash(digest: string): HashDictionary {
  const [algorithm, hex = ''] = digest.split(':')
  const hashes = new HashDictionary()
  if (algorithm === 'sha256') hashes.set(HashAlgorithm['SHA-256'], hex)
  if (algorithm === 'sha512') hashes.set(HashAlgorithm['SHA-512'], hex)
  return hashes
}

const SRI_ALGORITHMS: Record<string, HashAlgorithm> = {
  sha1: HashAlgorithm['SHA-1'],
  sha256: HashAlgorithm['SHA-256'],
  sha384: HashAlgorithm['SHA-384'],
  sha512: HashAlgorithm['SHA-512'],
}

/** npm's Subresource Integrity (`sha512-<base64>`, several space-separated), as hex hashes. */
function integrityHashes(integrity: string | undefined): HashDictionary {
  const hashes = new HashDictionary()
  for (const item of integrity?.split(/\s+/) ?? []) {
    const [, algorithm = '', base64 = ''] = /^([a-z0-9]+)-([A-Za-z0-9+/]+={0,2})$/.exec(item) ?? []
    const known = SRI_ALGORITHMS[algorithm]
    if (known) hashes.set(known, Buffer.from(base64, 'base64').toString('hex'))
  }
  return hashes
}

/** A serial number unique to this image and run, the same when the same run is asked again. */
function serialNumber(subject: SbomSubject, finishedOn: Date): string {
  const hex = createHash('sha256')
    .update(`${subject.reference}\n${subject.digest}\n${finishedOn.toISOString()}`)
    .digest('hex')
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16)
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}
