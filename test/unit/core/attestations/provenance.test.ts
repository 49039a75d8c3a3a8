import { describe, expect, test } from '@jest/globals'
import { ciFacts } from '../../../../src/core/attestations/facts.js'
import { readLockFile } from '../../../../src/core/attestations/lock-file.js'
import { BUILD_TYPE, provenancePredicate } from '../../../../src/core/attestations/provenance.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { leakForms } from '../../../helpers/secrets.js'
import { frontendFacts, SECRET_BUILD_ARG, SECRET_INPUT } from '../../../helpers/attestations.js'

const LOCK = JSON.stringify({ lockfileVersion: 3, packages: { '': { name: 'shop' } } })

describe('the SLSA provenance v1 predicate of an image', () => {
  test('names the source, the build, its inputs by name, what it resolved and the run', () => {
    const lockFile = readLockFile('package-lock.json', LOCK)
    if (isProblem(lockFile)) throw new Error(lockFile.problem)
    expect(provenancePredicate(frontendFacts({ lockFile }))).toEqual({
      buildDefinition: {
        buildType: BUILD_TYPE,
        externalParameters: {
          repository: 'https://github.com/acme/shop',
          ref: 'refs/heads/main',
          workflow: 'acme/shop/.github/workflows/images.yml@refs/heads/main',
          image: 'frontend',
          buildArgs: ['DRAW_VERSION', 'NPM_TOKEN'],
          inputs: ['codeasdata', 'registry-password'],
        },
        resolvedDependencies: [
          {
            uri: 'git+https://github.com/acme/shop@refs/heads/main',
            digest: { gitCommit: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d' },
          },
          { name: 'olympeio/frontend-base:stable', digest: { sha256: 'b'.repeat(64) } },
          {
            name: 'package-lock.json',
            digest: { sha256: lockFile.digest.slice('sha256:'.length) },
          },
        ],
      },
      runDetails: {
        builder: {
          id: 'https://github.com/acme/shop/.github/workflows/images.yml@refs/heads/main',
        },
        metadata: {
          invocationId: 'https://github.com/acme/shop/actions/runs/4242/attempts/1',
          startedOn: '2026-03-01T10:00:00.000Z',
          finishedOn: '2026-03-01T10:04:30.000Z',
        },
      },
    })
  })

  test('no value of a build argument or of an input, in any form', () => {
    const text = JSON.stringify(provenancePredicate(frontendFacts()))
    for (const secret of [SECRET_BUILD_ARG, SECRET_INPUT])
      for (const form of leakForms(secret))
        expect({ form, found: text.includes(form) }).toEqual({ form, found: false })
  })

  test('without a commit or a lock file, nothing is made up for them', () => {
    const facts = frontendFacts({ baseImages: [] })
    const source = { repository: facts.source.repository }
    const predicate = provenancePredicate({ ...facts, source })
    expect(predicate.buildDefinition.resolvedDependencies).toEqual([])
  })
})

describe('the facts a CI run gives a provenance', () => {
  const times = { startedOn: new Date(0), finishedOn: new Date(1000) }

  test('GitHub: the repository, the ref, the commit, the workflow, the run', () => {
    expect(
      ciFacts(
        {
          platform: 'github',
          repositoryUrl: 'https://github.com/acme/shop',
          ref: 'refs/tags/v1.2.0',
          sha: 'c'.repeat(40),
          workflow: 'acme/shop/.github/workflows/release.yml@refs/tags/v1.2.0',
          builderId: 'https://github.com/acme/shop/.github/workflows/release.yml@refs/tags/v1.2.0',
          runUrl: 'https://github.com/acme/shop/actions/runs/9/attempts/1',
        },
        times,
      ),
    ).toEqual({
      source: {
        repository: 'https://github.com/acme/shop',
        ref: 'refs/tags/v1.2.0',
        commit: 'c'.repeat(40),
      },
      run: {
        builderId: 'https://github.com/acme/shop/.github/workflows/release.yml@refs/tags/v1.2.0',
        workflow: 'acme/shop/.github/workflows/release.yml@refs/tags/v1.2.0',
        invocationId: 'https://github.com/acme/shop/actions/runs/9/attempts/1',
        ...times,
      },
    })
  })

  test.each([
    [
      'gitlab',
      { repositoryUrl: 'https://gitlab.example.com/acme/shop' },
      'the builder (CI_JOB_URL is not set)',
    ],
    ['github', {}, 'the repository (GITHUB_SERVER_URL and GITHUB_REPOSITORY are not set)'],
    ['local', {}, 'the repository (a local run has no CI to name it)'],
  ] as const)(
    '%s without what it needs: refused, saying which variables',
    (platform, known, end) => {
      expect(ciFacts({ platform, ...known }, times)).toEqual({
        problem: `a provenance names the repository and the builder, and this run does not know ${end}`,
      })
    },
  )
})
