import type { ImageKind } from '../shared/project-images.js'

/**
 * One image the step builds: its kind and, for one of several backends (`backends`), the name the
 * platform knows it by. Each is planned, fingerprinted, reused, built, signed and recorded on its
 * own, under its `id`.
 */
export interface ImageTarget {
  /**
   * What `images` and the `matrix` output call it, and the log's prefix: `frontend`, `backend`,
   * `backend:<name>` or `codeasdata`.
   */
  id: string
  kind: ImageKind
  /** The backend's name, when `backends` names them. */
  name?: string
  /** Without registry or tag. */
  imageName: string
  /** Its build output, the `SOURCES_PATH` build argument, relative to `working-directory`. */
  sources: string
  /** Relative to `working-directory`. */
  dockerfile: string
}

/** `backend:<name>` for a named backend, else the kind: one image's `id`. */
export function imageId(kind: ImageKind, name?: string): string {
  return name === undefined ? kind : `${kind}:${name}`
}

/** How messages name an image, before "image": `frontend`, `backend 'api'`. */
export function imageNoun(image: Pick<ImageTarget, 'kind' | 'name'>): string {
  return image.name === undefined ? image.kind : `${image.kind} '${image.name}'`
}
