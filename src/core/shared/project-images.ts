/**
 * The images of an Olympe project, as build-images makes them and deploy takes them (its
 * `built-images` reads build-images' `images` output): their kinds, and the names the platform can
 * give a backend.
 */

/** The three image kinds of an Olympe project, in the order they are reported. */
export const IMAGE_KINDS = ['frontend', 'backend', 'codeasdata'] as const
export type ImageKind = (typeof IMAGE_KINDS)[number]

/**
 * A name the platform can give a backend: deploy rules target it, and the chart makes
 * Kubernetes objects of it, whose names are DNS labels (RFC 1123: lowercase letters, digits and
 * '-', starting and ending with a letter or digit, at most 63 characters).
 */
const BACKEND_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
export const BACKEND_NAME_EXPECTED =
  "lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters"

export function isBackendName(name: string): boolean {
  return BACKEND_NAME.test(name)
}
