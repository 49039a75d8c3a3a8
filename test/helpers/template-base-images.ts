// The base images the official template's Dockerfiles name, in two flavours made locally from
// the :stable ones of docker-env.ts (there is no Docker Hub here):
// - 'onbuild' declares `ONBUILD ARG SOURCES_PATH`, so a child Dockerfile that never declares
//   `ARG SOURCES_PATH` (the template's) still receives the build argument. The template's own
//   names hold this flavour, so the fixture's Dockerfiles build as they are;
// - 'plain' declares nothing, under `<name>:<tag>-plain` only.
// No name ever changes flavour: suites that run at once on the shared daemon agree on what each
// name holds, and a test that wants 'plain' points its own copy's FROM lines at it.
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  BASE_IMAGES,
  docker,
  ensureBaseImages,
  imageExists,
  type BaseImages,
} from './docker-env.js'

/** What `docker/*.Dockerfile` of the template (2.15.0) build FROM. */
export const TEMPLATE_BASE_IMAGES = {
  frontend: 'olympeio/frontend-base:latest',
  backend: 'olympeio/backend-base:24-latest',
  codeasdata: 'olympeio/codeasdata-base:latest',
} as const

export type BaseFlavour = 'onbuild' | 'plain'
type Kind = keyof BaseImages
const KINDS = Object.keys(TEMPLATE_BASE_IMAGES) as Kind[]

/** Every reference of each flavour: 'onbuild' also answers to `<tag>-onbuild`. */
export const TEMPLATE_BASE_FLAVOURS: Record<BaseFlavour, BaseImages> = {
  onbuild: { ...TEMPLATE_BASE_IMAGES },
  plain: mapKinds((kind) => `${TEMPLATE_BASE_IMAGES[kind]}-plain`),
}

let ready: Promise<Record<BaseFlavour, BaseImages>> | undefined

/** Makes both flavours once (later runs reuse them); resolves to their references. */
export function ensureTemplateBaseImages(): Promise<Record<BaseFlavour, BaseImages>> {
  ready ??= makeFlavours().catch((error: unknown) => {
    ready = undefined
    throw error
  })
  return ready
}

async function makeFlavours(): Promise<Record<BaseFlavour, BaseImages>> {
  await ensureBaseImages()
  for (const kind of KINDS) {
    const plain = TEMPLATE_BASE_FLAVOURS.plain[kind]
    if (!(await imageExists(plain))) await docker(['tag', BASE_IMAGES[kind], plain])
    const onbuild = [TEMPLATE_BASE_IMAGES[kind], `${TEMPLATE_BASE_IMAGES[kind]}-onbuild`]
    if ((await Promise.all(onbuild.map(imageExists))).every(Boolean)) continue
    const dockerfile = [
      `FROM ${BASE_IMAGES[kind]}`,
      'ONBUILD ARG SOURCES_PATH',
      'LABEL olympe.test.flavour=onbuild',
      '',
    ].join('\n')
    const tags = onbuild.flatMap((reference) => ['--tag', reference])
    await docker(['build', '--quiet', ...tags, '-'], { input: dockerfile })
  }
  return TEMPLATE_BASE_FLAVOURS
}

/**
 * Points the FROM lines of a project's docker/*.Dockerfile at a flavour: 'onbuild' leaves the
 * template's files as they are; 'plain' rewrites each template base name to its -plain twin.
 */
export async function useBaseFlavour(projectDir: string, flavour: BaseFlavour): Promise<void> {
  if (flavour === 'onbuild') return
  const folder = join(projectDir, 'docker')
  for (const name of (await readdir(folder)).filter((file) => file.endsWith('.Dockerfile'))) {
    const file = join(folder, name)
    const text = await readFile(file, 'utf8')
    let changed = text
    for (const kind of KINDS) {
      changed = changed.replace(
        new RegExp(`^FROM ${escape(TEMPLATE_BASE_IMAGES[kind])}$`, 'm'),
        `FROM ${TEMPLATE_BASE_FLAVOURS.plain[kind]}`,
      )
    }
    if (changed === text) throw new Error(`${file} names none of the template's base images`)
    await writeFile(file, changed)
  }
}

function mapKinds(reference: (kind: Kind) => string): BaseImages {
  return {
    frontend: reference('frontend'),
    backend: reference('backend'),
    codeasdata: reference('codeasdata'),
  }
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
