import type { CiContext, Platform } from '../shared/context.js'
import type { Problem } from '../shared/problem.js'
import type { LockFile } from './lock-file.js'

/**
 * What the attestations of one image say, as typed facts: where its source came from, which run
 * built it, and what went into it. Values that could be secret are never kept: build arguments
 * and inputs are taken with their values (as the build has them) and only their names go on.
 */

/** The source built: the repository as the address of its web page, the ref, the commit. */
export interface SourceFacts {
  /** `https://github.com/acme/shop`, `https://gitlab.example.com/acme/shop`. */
  repository: string
  /** The full ref: `refs/heads/main`, `refs/tags/v1.2.0`. */
  ref?: string
  /** The commit, 40 hex digits. */
  commit?: string
}

/** The run that built the image. */
export interface RunFacts {
  /** The workflow's ref as a URL (GitHub), or the job's page (GitLab): SLSA's `builder.id`. */
  builderId: string
  /** GitHub: the workflow's ref (`acme/shop/.github/workflows/build.yml@refs/heads/main`); GitLab: the pipeline configuration's path. */
  workflow?: string
  /** The run's page (GitHub: of this attempt) or the pipeline's: SLSA's `invocationId`. */
  invocationId?: string
  startedOn: Date
  finishedOn: Date
}

/** An image the Dockerfile builds FROM, as written (resolved) and by the digest the build used. */
export interface BaseImage {
  reference: string
  /** `sha256:<hex>` of the manifest (or index) used. */
  digest: string
}

/** What went into one image. */
export interface ImageFacts {
  /** Which image of the project, by its id: `frontend`, `backend`, `codeasdata`, or `backend:<name>`. */
  image: string
  /** The build arguments, as the build has them: only their names are attested. */
  buildArgs: ReadonlyArray<readonly [string, string]>
  /** The inputs that shaped the image, as given: only their names are attested. */
  inputs: Readonly<Record<string, string>>
  baseImages: readonly BaseImage[]
  /** The project's lock file, read (see readLockFile). */
  lockFile?: LockFile
  /** `@olympeio/draw`'s version, which the frontend and code-as-data images are built with. */
  drawVersion?: string
}

export interface AttestationFacts {
  source: SourceFacts
  run: RunFacts
  image: ImageFacts
  /** This tool, for the SBOM's metadata: `{ name: 'olympe-deploy-actions', version: '1.0.0' }`. */
  tool: { name: string; version: string }
}

/**
 * The source and run facts of the CI context, or why an attestation cannot be made there: a
 * provenance must name the repository and the builder, which only a CI run knows.
 */
export function ciFacts(
  context: Pick<
    CiContext,
    'platform' | 'repositoryUrl' | 'ref' | 'sha' | 'builderId' | 'workflow' | 'runUrl'
  >,
  times: { startedOn: Date; finishedOn: Date },
): { source: SourceFacts; run: RunFacts } | Problem {
  const { repositoryUrl, builderId } = context
  if (!repositoryUrl || !builderId) {
    const fact = !repositoryUrl ? 'repository' : 'builder'
    return {
      problem: `a provenance names the repository and the builder, and this run does not know the ${fact} (${unknownFact(context.platform, fact)})`,
    }
  }
  return {
    source: {
      repository: repositoryUrl,
      ...(context.ref ? { ref: context.ref } : {}),
      ...(context.sha ? { commit: context.sha } : {}),
    },
    run: {
      builderId,
      ...(context.workflow ? { workflow: context.workflow } : {}),
      ...(context.runUrl ? { invocationId: context.runUrl } : {}),
      ...times,
    },
  }
}

/** The variables each CI sets for a fact a provenance names. */
const CI_VARIABLES: Record<
  Exclude<Platform, 'local'>,
  Record<'repository' | 'builder', string[]>
> = {
  github: {
    repository: ['GITHUB_SERVER_URL', 'GITHUB_REPOSITORY'],
    builder: ['GITHUB_SERVER_URL', 'GITHUB_WORKFLOW_REF'],
  },
  gitlab: { repository: ['CI_PROJECT_URL'], builder: ['CI_JOB_URL'] },
}

/** Why a run does not know a fact: the variables its CI sets for it are not there. */
export function unknownFact(platform: Platform, fact: 'repository' | 'builder'): string {
  if (platform === 'local') return 'a local run has no CI to name it'
  const variables = CI_VARIABLES[platform][fact]
  return `${variables.join(' and ')} ${variables.length > 1 ? 'are' : 'is'} not set`
}
