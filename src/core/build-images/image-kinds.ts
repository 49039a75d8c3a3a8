/** The three image kinds of an Olympe project, in the order they are reported. */
export const IMAGE_KINDS = ['frontend', 'backend', 'codeasdata'] as const
export type ImageKind = (typeof IMAGE_KINDS)[number]
