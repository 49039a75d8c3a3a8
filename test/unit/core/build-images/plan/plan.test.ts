import { describe, expect, test } from '@jest/globals'
import type { CiContext } from '../../../../../src/core/shared/context.js'
import { withDefaults } from '../../../../../src/core/definition.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../../../../src/core/build-images/definition.js'
import type { ImageKind } from '../../../../../src/core/shared/project-images.js'
import { parseBuildImagesInputs } from '../../../../../src/core/build-images/inputs.js'
import { renderTags } from '../../../../../src/core/build-images/check.js'
import { planImages, type PlanFacts } from '../../../../../src/core/build-images/plan/plan.js'
import { buildOutputs, formatSize } from '../../../../../src/core/build-images/report.js'
import { InputError } from '../../../../../src/core/shared/errors.js'
import { eachAnswer } from '../../../../helpers/unit-tables.js'

const SHA = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'
const context: CiContext = {
  platform: 'github',
  workspace: '/ws',
  event: 'push',
  isPullRequest: false,
  branch: 'main',
  sha: SHA,
  runId: '77',
  repository: 'acme/shop',
  repositoryUrl: 'https://github.com/acme/shop',
  registryLoginHelp: 'Check the login.',
}
const now = new Date('2026-11-22T10:00:00.000Z')
/** A build of main whose draw_version and project version are known. */
const MAIN_BUILD = { branch: 'main', drawVersion: '2.11.3', version: '1.4.0', now }

function inputs(
  given: Partial<Record<BuildImagesInputName, string>> = {},
): ReturnType<typeof parseBuildImagesInputs> {
  return parseBuildImagesInputs(withDefaults(buildImagesDefinition, given), context)
}

/** The plans, from the tags the check phase renders (checkBuildImages) with the run's facts. */
function planned(
  parsed: ReturnType<typeof parseBuildImagesInputs>,
  ci: CiContext,
  facts: Omit<PlanFacts, 'tags'>,
): ReturnType<typeof planImages> {
  const tags = renderTags(parsed, {
    branch: facts.branch,
    sha: ci.sha,
    runId: ci.runId,
    date: facts.now,
  })
  return planImages(parsed, ci, { ...facts, tags })
}

describe('image plan', () => {
  test('two images by default, with references, SOURCES_PATH and labels', () => {
    const plans = planned(inputs({ registry: 'r.io' }), context, MAIN_BUILD)
    expect(plans.map((plan) => plan.kind)).toEqual(['frontend', 'backend'])
    expect(plans[0]).toEqual({
      id: 'frontend',
      kind: 'frontend',
      reference: 'r.io/acme/shop/frontend:main-1a2b3c4',
      references: ['r.io/acme/shop/frontend:main-1a2b3c4'],
      moving: 'r.io/acme/shop/frontend:main',
      dockerfile: 'docker/frontend.Dockerfile',
      sources: 'dist/web',
      command: {
        dockerfile: '/ws/docker/frontend.Dockerfile',
        context: '/ws',
        sourcesPath: 'dist/web',
        tags: ['r.io/acme/shop/frontend:main-1a2b3c4', 'r.io/acme/shop/frontend:main'],
        buildArgs: [],
        labels: [
          ['draw_version', '2.11.3'],
          ['org.opencontainers.image.version', '1.4.0'],
          ['org.opencontainers.image.source', 'https://github.com/acme/shop'],
          ['org.opencontainers.image.revision', SHA],
          ['org.opencontainers.image.created', '2026-11-22T10:00:00.000Z'],
        ],
        platform: undefined,
        cacheFrom: [],
        secrets: [],
        registryCache: 'r.io/acme/shop/frontend:buildcache',
      },
    })
    expect(plans[1]?.command.sourcesPath).toBe('dist/node')
  })

  test('codeasdata adds the third image; extra tags are deduplicated', () => {
    const plans = planned(
      inputs({ registry: 'r.io', codeasdata: 'true', 'extra-tags': 'latest,{branch}-{short-sha}' }),
      context,
      { branch: 'feature/X', now },
    )
    expect(plans.map((plan) => plan.kind)).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(plans[2]?.references).toEqual([
      'r.io/acme/shop/codeasdata:feature-x-1a2b3c4',
      'r.io/acme/shop/codeasdata:latest',
    ])
    expect(plans[2]?.command.sourcesPath).toBe('dist/codeAsData')
    expect(plans[2]?.command.labels.map(([name]) => name)).not.toContain('draw_version')
  })

  test.each<[string, Partial<Record<BuildImagesInputName, string>>, ImageKind[]]>([
    ['default', {}, ['frontend', 'backend']],
    ['codeasdata true', { codeasdata: 'true' }, ['frontend', 'backend', 'codeasdata']],
    ['images: codeasdata', { images: 'codeasdata' }, ['codeasdata']],
    [
      'images: frontend, codeasdata true',
      { images: 'frontend', codeasdata: 'true' },
      ['frontend', 'codeasdata'],
    ],
    ['images: backend', { images: 'backend' }, ['backend']],
  ])('plans only the images selected: %s', (_name, given, kinds) => {
    const plans = planned(inputs({ registry: 'r.io', ...given }), context, {
      branch: 'main',
      now,
    })
    expect(plans.map((plan) => plan.kind)).toEqual(kinds)
    // Each plan keeps its own Dockerfile, sources and name, whatever else is built.
    for (const plan of plans) {
      expect(plan.dockerfile).toBe(`docker/${plan.kind}.Dockerfile`)
      expect(plan.reference).toBe(`r.io/acme/shop/${plan.kind}:main-1a2b3c4`)
    }
  })

  test('the moving tag is the branch made a valid tag, pushed with the others', () => {
    const plans = planned(inputs({ registry: 'r.io', 'extra-tags': 'latest' }), context, {
      branch: 'Feature/JIRA-1 fix',
      now,
    })
    expect(plans[1]?.moving).toBe('r.io/acme/shop/backend:feature-jira-1-fix')
    expect(plans[1]?.references).toEqual([
      'r.io/acme/shop/backend:feature-jira-1-fix-1a2b3c4',
      'r.io/acme/shop/backend:latest',
    ])
    expect(plans[1]?.command.tags).toEqual([
      'r.io/acme/shop/backend:feature-jira-1-fix-1a2b3c4',
      'r.io/acme/shop/backend:latest',
      'r.io/acme/shop/backend:feature-jira-1-fix',
    ])
  })

  test('a tag template that is the branch alone: the moving tag is that tag, once', () => {
    const plans = planned(inputs({ registry: 'r.io', 'tag-template': '{branch}' }), context, {
      branch: 'main',
      now,
    })
    expect(plans[0]?.command.tags).toEqual(['r.io/acme/shop/frontend:main'])
  })

  test('push false: no moving tag and no registry cache', () => {
    const plans = planned(inputs({ registry: 'r.io', push: 'false' }), context, {
      branch: 'main',
      now,
    })
    expect(plans[0]?.moving).toBeUndefined()
    expect(plans[0]?.command.tags).toEqual(['r.io/acme/shop/frontend:main-1a2b3c4'])
    expect(plans[0]?.command.registryCache).toBeUndefined()
  })

  test("a branch named like the cache's tag: no registry cache, which its tag would overwrite", () => {
    const plans = planned(inputs({ registry: 'r.io' }), context, { branch: 'buildcache', now })
    expect(plans[0]?.moving).toBe('r.io/acme/shop/frontend:buildcache')
    expect(plans[0]?.command.registryCache).toBeUndefined()
  })

  test("the project's version is the OCI version label, after draw_version", () => {
    const plans = planned(inputs({ registry: 'r.io' }), context, MAIN_BUILD)
    expect(plans[0]?.command.labels.slice(0, 2)).toEqual([
      ['draw_version', '2.11.3'],
      ['org.opencontainers.image.version', '1.4.0'],
    ])
  })

  test("the served files' digests label the frontend image alone", () => {
    const digest = `sha256:${'c'.repeat(64)}`
    const plans = planned(inputs({ registry: 'r.io' }), context, {
      branch: 'main',
      served: { 'main.js': digest },
      now,
    })
    const served = (kind: string): unknown =>
      plans
        .find((plan) => plan.kind === kind)
        ?.command.labels.find(([name]) => name === 'io.olympe.deploy-actions.served-files')?.[1]
    expect(served('frontend')).toBe(JSON.stringify({ 'main.js': digest }))
    expect(served('backend')).toBeUndefined()
  })

  test('labels for facts a local run lacks are left out', () => {
    const local: CiContext = { ...context, repositoryUrl: undefined, sha: undefined }
    const plans = planned(inputs({ registry: 'r.io', 'tag-template': '{date}' }), local, {
      branch: 'main',
      now,
    })
    expect(plans[0]?.command.labels).toEqual([
      ['org.opencontainers.image.created', '2026-11-22T10:00:00.000Z'],
    ])
    expect(plans[0]?.reference).toBe('r.io/acme/shop/frontend:20261122')
  })

  test('a placeholder the run cannot fill is an input error naming the template', () => {
    const local: CiContext = { ...context, runId: undefined }
    let error: unknown
    try {
      planned(inputs({ registry: 'r.io', 'extra-tags': 'build-{run-id}' }), local, {
        branch: 'main',
        now,
      })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).message).toBe(
      "Invalid input 'extra-tags' 'build-{run-id}': uses {run-id}, but there is no run or pipeline id (it exists only in CI); remove it from the template.",
    )
  })
})

/** The targets of the default `images`, as the outputs' matrix reads them. */
const TWO = inputs({ registry: 'r.io' }).targets

describe('outputs', () => {
  test('skipped: every image output empty', () => {
    expect(buildOutputs([], { skipped: true, targets: TWO })).toEqual({
      skipped: 'true',
      'sbom-folder': '',
      version: '',
      reused: '[]',
      images: '[]',
      matrix: '[]',
      'backend-images': '',
      ...Object.fromEntries(
        ['frontend', 'backend', 'codeasdata'].flatMap((kind) => [
          [`${kind}-image`, ''],
          [`${kind}-digest`, ''],
        ]),
      ),
    })
  })

  test('built: references, digests and one-line JSON', () => {
    const outputs = buildOutputs(
      [
        {
          id: 'frontend',
          kind: 'frontend',
          reference: 'r/f:1',
          references: ['r/f:1'],
          digest: 'sha256:a',
          size: 5,
        },
        { id: 'backend', kind: 'backend', reference: 'r/b:1', references: ['r/b:1', 'r/b:latest'] },
      ],
      { skipped: false, targets: TWO },
    )
    expect(outputs).toMatchObject({
      skipped: 'false',
      matrix: '["frontend","backend"]',
      'backend-images': 'r/b:1',
      'frontend-image': 'r/f:1',
      'frontend-digest': 'sha256:a',
      'backend-image': 'r/b:1',
      'backend-digest': '',
      'codeasdata-image': '',
    })
    expect(outputs.images).not.toContain('\n')
    expect(JSON.parse(outputs.images)).toEqual([
      { kind: 'frontend', reference: 'r/f:1', references: ['r/f:1'], digest: 'sha256:a', size: 5 },
      {
        kind: 'backend',
        reference: 'r/b:1',
        references: ['r/b:1', 'r/b:latest'],
        digest: '',
        size: null,
      },
    ])
  })

  eachAnswer('size %j reads %j', formatSize, [
    [undefined, 'size unknown'],
    [999, '999 B'],
    [1_984_513, '2.0 MB'],
    [123_456_789, '123.5 MB'],
    [2_500_000_000, '2.5 GB'],
  ])
})
