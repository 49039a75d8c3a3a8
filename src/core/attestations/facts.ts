import type { CiContext } from '../shared/context.js'
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
  /** Which image of the project: `frontend`, `codeasdata`, or a backend's name. */
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
): { source: SourceFacts; run: RunFacts } | { problem: string } {
  const { repositoryUrl, builderId } = context
  if (!repositoryUrl || !builderId) {
    const needs =
      context.platform === 'gitlab'
        ? 'CI_PROJECT_URL and CI_JOB_URL'
        : context.platform === 'github'
          ? 'GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_WORKFLOW_REF'
          : 'a CI run (GitHub Actions or GitLab CI)'
    return {
      problem: `a provenance names the repository and the builder, and this run does not know ${!repositoryUrl ? 'the repository' : 'the builder'}: it needs ${needs}`,
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
