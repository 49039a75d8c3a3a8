// One template per action: a single job with the action's inputs, the runner inputs and the
// rules of spec 1.3 rule 7.
import type { ActionDefinition } from '../../src/core/definition.js'
import {
  definitionInputs,
  handoverDefaults,
  jobInputs,
  runnerInputs,
  type GitlabInputs,
} from './gitlab-inputs.js'
import {
  DEFAULT_BRANCH_RULES,
  ENSURE_NODE,
  SCHEDULE_RULES,
  actionJob,
  dotenvReport,
  input,
} from './gitlab-jobs.js'
import { secretVariables, type Template } from './gitlab-template.js'

export const NODE_IMAGE = 'node:24'
export const NODE_SLIM_IMAGE = 'node:24-slim'
// Has the Docker client; ENSURE_NODE adds Node.js with apk.
export const DOCKER_IMAGE = 'docker:27-cli'

export const DOTENV = {
  snapshot: 'olympe-snapshot.env',
  'build-images': 'olympe-build-images.env',
  deploy: 'olympe-deploy.env',
} as const

export function resourceGroupInput(name: string, what: string): GitlabInputs {
  return {
    'resource-group': {
      description: `GitLab resource group of the job: two ${what} never run at once.`,
      default: name,
    },
  }
}

export const SERVICES_INPUT: GitlabInputs = {
  services: {
    description:
      'Services of the job, as in `services:`. For Docker-in-Docker: `[{name: "docker:27-dind", alias: docker}]` and the `DOCKER_HOST` variable (see gitlab/README.md).',
    type: 'array',
    default: [],
  },
}

export function deployTemplate(
  deploy: ActionDefinition,
  buildImages: ActionDefinition,
  version: string,
): Template {
  return {
    name: 'deploy',
    summary: deploy.description,
    inputs: {
      ...jobInputs('olympe-deploy', 'deploy'),
      ...definitionInputs(deploy, { defaults: handoverDefaults(buildImages) }),
      ...resourceGroupInput('olympe-deploy', 'deployments'),
      ...runnerInputs(version, NODE_SLIM_IMAGE),
    },
    jobs: {
      [input('job-name')]: {
        stage: input('stage'),
        image: input('image'),
        resource_group: input('resource-group'),
        rules: DEFAULT_BRANCH_RULES,
        ...actionJob({ definition: deploy, dotenv: DOTENV.deploy }),
        artifacts: dotenvReport(DOTENV.deploy),
      },
    },
    variables: secretVariables(deploy),
  }
}

export function buildImagesTemplate(buildImages: ActionDefinition, version: string): Template {
  return {
    name: 'build-images',
    summary: buildImages.description,
    inputs: {
      ...jobInputs('olympe-build-images', 'build'),
      ...definitionInputs(buildImages),
      ...runnerInputs(version, DOCKER_IMAGE),
      ...SERVICES_INPUT,
    },
    jobs: {
      [input('job-name')]: {
        stage: input('stage'),
        image: input('image'),
        services: input('services'),
        rules: DEFAULT_BRANCH_RULES,
        ...actionJob({
          definition: buildImages,
          dotenv: DOTENV['build-images'],
          before: [ENSURE_NODE],
        }),
        artifacts: dotenvReport(DOTENV['build-images']),
      },
    },
    variables: {
      ...secretVariables(buildImages),
      DOCKER_HOST: 'Docker engine the job uses (Docker-in-Docker: `tcp://docker:2376`).',
    },
  }
}

export function snapshotTemplate(snapshot: ActionDefinition, version: string): Template {
  return {
    name: 'snapshot',
    summary: snapshot.description,
    inputs: {
      ...jobInputs('olympe-snapshot', 'build'),
      ...definitionInputs(snapshot),
      'install-dependencies': {
        description:
          'Run `npm ci` in the project first, so that the toolkit the snapshot runs is installed.',
        type: 'boolean',
        default: true,
      },
      ...resourceGroupInput('olympe-snapshot', 'snapshots'),
      ...runnerInputs(version, NODE_IMAGE),
    },
    jobs: {
      [input('job-name')]: {
        stage: input('stage'),
        image: input('image'),
        resource_group: input('resource-group'),
        rules: SCHEDULE_RULES,
        ...actionJob({
          definition: snapshot,
          dotenv: DOTENV.snapshot,
          before: [
            `if [ "${input('install-dependencies')}" = true ]; then (cd "\${INPUT_WORKING_DIRECTORY:-.}" && npm ci); fi`,
          ],
        }),
        artifacts: dotenvReport(DOTENV.snapshot),
      },
    },
    variables: secretVariables(snapshot),
  }
}
