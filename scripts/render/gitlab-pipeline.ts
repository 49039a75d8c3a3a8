// gitlab/pipeline.yml: the whole chain of spec steps 2 to 4 in one include. Build the project,
// build and push its images, deploy them. The code-as-data image has a job of its own that builds
// only that image: automatic when asked (spec 1.3 rule 7), otherwise manual and blocking nothing,
// so running it later never pushes the frontend and backend tags the deploy used again.
import type { ActionDefinition } from '../../src/core/definition.js'
import {
  DOCKER_IMAGE,
  DOTENV,
  NODE_IMAGE,
  SERVICES_INPUT,
  resourceGroupInput,
} from './gitlab-actions.js'
import {
  IMAGE_HANDOVER,
  definitionInputs,
  handoverDefaults,
  mergeInputs,
  runnerInputs,
  type GitlabInputs,
} from './gitlab-inputs.js'
import {
  DEFAULT_BRANCH_RULES,
  ENSURE_NODE,
  actionJob,
  automaticOrManualRules,
  dotenvReport,
  filterDotenvLines,
  input,
  section,
  type Job,
} from './gitlab-jobs.js'
import { secretVariables, type Template } from './gitlab-template.js'

const CODEASDATA_DOTENV = 'olympe-codeasdata-image.env'
const CODEASDATA_OUTPUTS = 'codeasdata-'
const BUILD_CODE_AS_DATA = 'npx olympe buildCodeAsData'
// Each image job builds its own images, whatever the pipeline's codeasdata switch says: the
// images job never the code as data, its job nothing else.
const IMAGES_JOB_BUILDS = { images: 'frontend,backend', codeasdata: 'false' }
const CODEASDATA_JOB_BUILDS = { images: 'codeasdata', codeasdata: 'true' }
const CODEASDATA_INPUT =
  'Build the code-as-data image in `<prefix>-codeasdata-image` before the deploy; when false, that job is manual and blocks nothing. Deploying it updates the composition database, which can briefly interrupt it.'

const job = (suffix: string): string => `${input('job-prefix')}-${suffix}`

function pipelineInputs(
  buildImages: ActionDefinition,
  deploy: ActionDefinition,
  version: string,
): GitlabInputs {
  // The pipeline has two images (Node.js jobs, Docker jobs) instead of the one `image` input.
  const runner = runnerInputs(version, NODE_IMAGE)
  delete runner.image
  return mergeInputs(
    {
      'job-prefix': {
        description:
          'Prefix of the job names: `<prefix>-build`, `-images`, `-codeasdata-image`, `-deploy`.',
        default: 'olympe',
      },
      'build-stage': {
        description: 'Stage of the project build and image jobs; your pipeline must define it.',
        default: 'build',
      },
      'deploy-stage': {
        description: 'Stage of the deploy job, after `build-stage`; your pipeline must define it.',
        default: 'deploy',
      },
    },
    // `images` is the image jobs' own: each builds a fixed set.
    pipelineImageInputs(buildImages),
    // The images come from the image jobs' dotenv reports, not from inputs.
    definitionInputs(deploy, { omit: Object.keys(IMAGE_HANDOVER) }),
    resourceGroupInput('olympe-deploy', 'deployments'),
    runner,
    {
      'node-image': {
        description: 'Image of the build and deploy jobs: Node.js 20+ with npm and git.',
        default: NODE_IMAGE,
      },
      'docker-image': {
        description: 'Image of the image jobs: a Docker client, and Node.js or Alpine’s apk.',
        default: DOCKER_IMAGE,
      },
    },
    SERVICES_INPUT,
  )
}

function pipelineImageInputs(buildImages: ActionDefinition): GitlabInputs {
  const inputs = definitionInputs(buildImages, { omit: ['images'] })
  const codeasdata = inputs.codeasdata
  if (!codeasdata) throw new Error("build-images has no 'codeasdata' input any more.")
  return { ...inputs, codeasdata: { ...codeasdata, description: CODEASDATA_INPUT } }
}

function buildJob(): Job {
  const sourcesPaths = ['frontend-sources', 'backend-sources', 'codeasdata-sources'].map(
    (name) => `${input('working-directory')}/${input(name)}`,
  )
  return {
    stage: input('build-stage'),
    image: input('node-image'),
    rules: DEFAULT_BRANCH_RULES,
    variables: { OLYMPE_PROJECT_DIR: input('working-directory') },
    script: [
      'cd "$OLYMPE_PROJECT_DIR"',
      ...section('olympe_npm_ci', 'Install the project (npm ci)', 'npm ci'),
      ...section('olympe_build_draw', 'Build the frontend', 'npm run build:draw'),
      ...section('olympe_build_node', 'Build the backend', 'npm run build:node'),
      ...section(
        'olympe_build_codeasdata',
        'Build the code as data',
        `if [ "${input('codeasdata')}" = true ]; then ${BUILD_CODE_AS_DATA}; else echo "Not asked (codeasdata is false)."; fi`,
      ),
    ],
    artifacts: { paths: sourcesPaths, expire_in: '1 day' },
  }
}

function imageJob(extra: Job): Job {
  return {
    stage: input('build-stage'),
    needs: [job('build')],
    image: input('docker-image'),
    services: input('services'),
    ...extra,
  }
}

export function pipelineTemplate(
  { buildImages, deploy }: { buildImages: ActionDefinition; deploy: ActionDefinition },
  version: string,
): Template {
  const imagesDotenv = DOTENV['build-images']
  const dotenvImages = handoverDefaults(buildImages)
  const handover = Object.fromEntries(
    Object.keys(IMAGE_HANDOVER).map((name) => [name, dotenvImages[name] ?? '']),
  )
  return {
    name: 'pipeline',
    summary:
      'builds the project (npm ci, build:draw, build:node, buildCodeAsData when asked), builds and pushes its images, and deploys them.',
    inputs: pipelineInputs(buildImages, deploy, version),
    jobs: {
      [job('build')]: buildJob(),
      [job('images')]: imageJob({
        rules: DEFAULT_BRANCH_RULES,
        ...actionJob({
          definition: buildImages,
          dotenv: imagesDotenv,
          fixed: IMAGES_JOB_BUILDS,
          before: [ENSURE_NODE],
          // Its code-as-data lines are empty: they must not hide the code-as-data job's.
          after: [filterDotenvLines(imagesDotenv, buildImages.id, CODEASDATA_OUTPUTS, 'drop')],
        }),
        artifacts: dotenvReport(imagesDotenv),
      }),
      [job('codeasdata-image')]: imageJob({
        rules: automaticOrManualRules('codeasdata'),
        ...actionJob({
          definition: buildImages,
          dotenv: CODEASDATA_DOTENV,
          fixed: CODEASDATA_JOB_BUILDS,
          before: [
            ENSURE_NODE,
            // Asked for, the build job built the code as data; run by hand, the job builds it.
            `if [ "${input('codeasdata')}" != true ]; then (cd "\${INPUT_WORKING_DIRECTORY:-.}" && npm ci && ${BUILD_CODE_AS_DATA}); fi`,
          ],
          // Only its own lines: the frontend and backend references are the images job's.
          after: [filterDotenvLines(CODEASDATA_DOTENV, buildImages.id, CODEASDATA_OUTPUTS, 'keep')],
        }),
        artifacts: dotenvReport(CODEASDATA_DOTENV),
      }),
      [job('deploy')]: {
        stage: input('deploy-stage'),
        image: input('node-image'),
        resource_group: input('resource-group'),
        rules: DEFAULT_BRANCH_RULES,
        ...actionJob({ definition: deploy, dotenv: DOTENV.deploy, fixed: handover }),
        artifacts: dotenvReport(DOTENV.deploy),
      },
    },
    variables: {
      ...secretVariables(buildImages),
      ...secretVariables(deploy),
      DOCKER_HOST: 'Docker engine of the image jobs (Docker-in-Docker: `tcp://docker:2376`).',
    },
  }
}
