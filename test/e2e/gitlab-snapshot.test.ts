// gitlab/snapshot.yml in a scheduled pipeline, run by gitlab-ci-local: the configuration comes
// from a File-type CI/CD variable (it holds the git token), the password from DRAW_PASSWORD, the
// package from a loopback npm registry; the snapshot lands in a real git remote over HTTP.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { useCleanup, useServers } from '../helpers/suite.js'
import {
  DRAW_PASSWORD,
  DRAW_USERNAME,
  IDS,
  PLATFORM_STATE,
  salesSnapshot,
  TOOLKIT_COMMAND,
} from '../helpers/fake-toolkit.js'
import { startGitServer } from '../helpers/git-server.js'
import {
  ciFile,
  component,
  createGitlabProject,
  pipelineRecord,
  type GitlabProject,
} from '../helpers/gitlab-ci-local.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { startProjectRegistry } from '../helpers/verdaccio.js'

const TOKEN = 'glpat-snapshotToken7d3e9a1c'
const BASIC = Buffer.from(`${TOKEN}:`).toString('base64')
const REPO = 'acme/shop-cad'

let scratch: string
let project: GitlabProject
const pipelines = pipelineRecord()
const cleanup = useCleanup()
const { gitServer, npmRegistry } = useServers(
  { gitServer: () => startGitServer({ token: TOKEN }), npmRegistry: startProjectRegistry },
  cleanup,
  60_000,
)

beforeAll(async () => {
  await gitServer.createRepo(REPO)
  scratch = await cleanup.tempDir('olympe-gitlab-snapshot-')
  const ci = ciFile(
    ['build'],
    [
      {
        component: component('snapshot'),
        inputs: {
          config: '$SNAPSHOT_CONFIG',
          'toolkit-command': JSON.stringify(TOOLKIT_COMMAND),
          'draw-username': DRAW_USERNAME,
          'install-dependencies': 'false',
          'npm-registry': npmRegistry.url,
        },
      },
    ],
  )
  project = cleanup.track('GitLab project', await createGitlabProject({ '.gitlab-ci.yml': ci }))
}, 60_000)

/** What GitLab does for a File variable: writes the value to a file, the variable holds its path. */
async function fileVariable(name: string, value: unknown): Promise<string> {
  const path = join(scratch, name)
  await writeFile(path, JSON.stringify(value))
  return path
}

describe('gitlab/snapshot.yml run by gitlab-ci-local', () => {
  test('a scheduled pipeline commits the code as data and pushes it', async () => {
    const config = [salesSnapshot(gitServer.urlFor(REPO), 'Snapshot in {folder}')]
    await pipelines.passing(project, {
      variables: {
        CI_PIPELINE_SOURCE: 'schedule',
        SNAPSHOT_CONFIG: await fileVariable('snapshot-config.json', config),
        DRAW_PASSWORD,
        GITLAB_USER_NAME: 'Pipeline Owner',
        GITLAB_USER_EMAIL: 'owner@acme.test',
      },
      // The fake toolkit prints the password at debug level, as the real one does.
      env: { FAKE_PLATFORM_STATE: PLATFORM_STATE, FAKE_TOOLKIT_ECHO_SECRETS: '1' },
    })

    const [tip] = await gitServer.log(REPO, 'main')
    expect(tip).toMatchObject({
      subject: 'Snapshot in snapshot/sales',
      authorName: 'Pipeline Owner',
      authorEmail: 'owner@acme.test',
    })
    const files = Object.keys(await gitServer.files(REPO, 'main', 'snapshot'))
    expect(files).toContain(`snapshot/sales/${IDS.sales}/${IDS.sales}.json`)
    expect(gitServer.forcePushes(REPO)).toBe(0)
  })

  test('no job log holds the git token or the platform password', () => {
    expect(pipelines.runs).toHaveLength(1)
    expectNoSecrets(pipelines.logs(), [TOKEN, BASIC, DRAW_PASSWORD])
  })
})
