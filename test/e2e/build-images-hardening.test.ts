// build-images against the real engine where a run must leave nothing behind: cancelled in the
// middle of a build (SIGINT from the GitHub runner, SIGTERM from GitLab), and with build secrets,
// which reach BuildKit and nothing else.
import { describe, expect, test } from '@jest/globals'
import type { ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { useCleanup } from '../helpers/suite.js'
import { docker, dockerRun } from '../helpers/docker-env.js'
import {
  expectBuildCancelled,
  githubPush,
  gitlabPush,
  useDockerSuite,
} from '../helpers/docker-suite.js'
import { buildProcesses, killAll, whenGone, whenRunning } from '../helpers/processes.js'
import { runAsGithub, runCli, type RunOptions, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'

const cleanup = useCleanup()
const suite = useDockerSuite(cleanup)

const BASE = 'FROM olympeio/frontend-base:stable\nARG SOURCES_PATH\n'
const COPY = 'COPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\n'

/** A copy of the sample project whose frontend Dockerfile runs `step` before its COPY. */
async function projectWith(step: string): Promise<string> {
  const project = await suite.copyProject()
  await writeFile(join(project, 'docker/frontend.Dockerfile'), `${BASE}${step}\n${COPY}`)
  return project
}

describe('build-images cancelled during a build', () => {
  // Old runs died at once: the step's Docker config, with `auth` = base64(user:password), stayed
  // in the machine's temp folder, and the build went on without the step.
  // The third: the runner's SIGTERM comes while the step still unwinds, and it exits at once.
  test.each<['github' | 'gitlab', NodeJS.Signals, NodeJS.Signals | undefined, number]>([
    ['github', 'SIGINT', undefined, 3301],
    ['gitlab', 'SIGTERM', undefined, 3302],
    ['github', 'SIGINT', 'SIGTERM', 3303],
  ])(
    'on %s, %s (then %s) leaves no login on disk and no build running, and the step says it was cancelled',
    async (platform, signal, second, seconds) => {
      // A RUN step that waits, and a token that keeps BuildKit from reusing an earlier run's.
      const token = randomBytes(6).toString('hex')
      const project = await projectWith(`RUN echo "build ${token}" && sleep ${seconds}`)
      const repository = suite.uniqueRepository('cancel')
      // The job's temporary folder, and the machine's (TMPDIR), both to be left as they were.
      const jobTemp = await cleanup.tempDir('olympe-job-temp-')
      const machineTemp = await cleanup.tempDir('olympe-machine-temp-')
      const ours = buildProcesses(/buildx build/, project, seconds)
      let step: ChildProcess | undefined
      const options: RunOptions = {
        cwd: project,
        inputs: {
          ...suite.pushInputs,
          images: 'frontend',
          'frontend-image-name': `${repository}/frontend`,
        },
        env: {
          ...suite.env,
          TMPDIR: machineTemp,
          ...(platform === 'github'
            ? { ...githubPush(repository), RUNNER_TEMP: jobTemp }
            : { ...gitlabPush(repository, project), RUNNER_TEMP_PROJECT_DIR: jobTemp }),
        },
        timeoutMs: 120_000,
        onSpawn: (child) => (step = child),
      }
      try {
        await suite.spy.reset()
        const running =
          platform === 'github'
            ? runAsGithub('build-images', options)
            : runCli('build-images', options)
        // The build has reached its RUN step: the engine runs the sleep.
        expect(await whenRunning(`sleep ${seconds}`, 60_000)).toBe(true)
        step?.kill(signal)
        // Two signals sent back to back may reach the step's handlers in either order, and the
        // step names the first it handled. The second comes a little later, as the runner's does,
        // while the step still unwinds.
        if (second)
          await new Promise((resolve) => setTimeout(resolve, 200)).then(() => step?.kill(second))
        const result: RunResult = await running
        expectBuildCancelled(result, platform, signal)
        // No docker buildx build, and no RUN step of the build, left running.
        expect(await whenGone(ours, 30_000)).toEqual([])
        // Nothing of the step's left in either temporary folder; the job's config untouched.
        expect(await readdir(jobTemp)).toEqual([])
        expect(await readdir(machineTemp)).toEqual([])
        expect(await suite.storedAuths()).toEqual([])
        expect(await suite.registry.catalog()).not.toContain(`${repository}/frontend`)
        expectNoSecrets(await suite.seenIn(result), [suite.registry.password])
      } finally {
        killAll(ours())
      }
    },
    150_000,
  )
})

describe("'build-secrets' on the real engine", () => {
  test('a secret is readable in RUN --mount=type=secret and nowhere else: not in the log, the argv or the image', async () => {
    const token = `npm_${randomBytes(12).toString('hex')}`
    const other = `other-${randomBytes(12).toString('hex')}`
    const argValue = `arg-${randomBytes(8).toString('hex')}`
    // The image keeps only the secret's hash: the build read the value it was given. BuildKit
    // leaves secrets out of a step's cache key: the nonce keeps it from reusing an earlier run's.
    const nonce = randomBytes(6).toString('hex')
    const project = await projectWith(
      `RUN --mount=type=secret,id=NPM_TOKEN,required=true --mount=type=secret,id=other.id,required=true echo ${nonce} && sha256sum /run/secrets/NPM_TOKEN | cut -d" " -f1 > /npm-token.sha256 && test -s /run/secrets/other.id`,
    )
    const repository = suite.uniqueRepository('secrets')
    await suite.spy.reset()
    const result = await runAsGithub('build-images', {
      cwd: project,
      inputs: {
        ...suite.pushInputs,
        images: 'frontend',
        'frontend-image-name': `${repository}/frontend`,
        'build-secrets': `NPM_TOKEN=${token}\nother.id=${other}\n`,
        'build-args': `NPM_AUTH_TOKEN=${argValue}`,
      },
      env: { ...suite.env, ...githubPush(repository) },
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const reference = result.outputs['frontend-image'] ?? ''
    const hash = createHash('sha256').update(token).digest('hex')
    expect((await dockerRun(reference, ['cat', '/npm-token.sha256'])).trim()).toBe(hash)
    const commands = await suite.spy.commands()
    const build = commands.find((line) => line.startsWith('buildx build')) ?? ''
    expect(build).toContain(
      '--secret id=NPM_TOKEN,env=OLYMPE_BUILD_SECRET_1 --secret id=other.id,env=OLYMPE_BUILD_SECRET_2',
    )
    // A build argument that looks secret is warned about, and masked in the log.
    expect(result.stdout).toContain(
      "::warning title=Build argument::'build-args' sets NPM_AUTH_TOKEN, whose name says it holds a secret: a build argument stays in the image, where 'docker history' shows it to anyone who can pull the image, and on docker's command line. Give it in 'build-secrets' instead (NPM_AUTH_TOKEN=<value>) and read it with RUN --mount=type=secret,id=NPM_AUTH_TOKEN.",
    )
    expectNoSecrets(
      {
        stdout: result.stdout,
        stderr: result.stderr,
        ...result.files,
        'docker argv': commands.join('\n'),
        'docker history': await docker(['image', 'history', '--no-trunc', reference]),
        'docker image inspect': await docker(['image', 'inspect', reference]),
      },
      [token, other, suite.registry.password],
    )
    expectNoSecrets({ stdout: result.stdout, stderr: result.stderr, ...result.files }, [argValue])
  }, 120_000)
})
