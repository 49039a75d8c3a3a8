import { describe, expect, test } from '@jest/globals'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { buildahAuthFilePath, buildahSession } from '../../../src/tools/buildah.js'
import { withCleanup } from '../../helpers/cleanup.js'

const DOCKER_LOGIN = '{"auths":{"registry.example.com":{"auth":"Y2k6cHc="}}}\n'
const BUILDAH_LOGIN = '{"auths":{"quay.example.com":{"auth":"cTpwdw=="}}}\n'

/**
 * The auth file buildah is given for a step on a runner set up as `runner` says (its Docker
 * config, its `buildah login`), with a login given as inputs or not: undefined when none (buildah
 * then finds the runner's own), else what that file holds.
 */
async function authFileFor(
  runner: { dockerConfig?: 'none' | 'empty' | 'logged-in'; buildahLogin?: boolean },
  login: boolean,
): Promise<{ given?: string; lookUps: string }> {
  return withCleanup(async (cleanup) => {
    const jobTemp = await cleanup.tempDir('olympe-buildah-job-')
    const runtime = await cleanup.tempDir('olympe-buildah-runtime-')
    const env: Record<string, string> = {
      GITLAB_CI: 'true',
      RUNNER_TEMP_PROJECT_DIR: jobTemp,
      XDG_RUNTIME_DIR: runtime,
    }
    if (runner.dockerConfig && runner.dockerConfig !== 'none') {
      env.DOCKER_CONFIG = await cleanup.tempDir('olympe-buildah-docker-config-')
      if (runner.dockerConfig === 'logged-in')
        await writeFile(join(env.DOCKER_CONFIG, 'config.json'), DOCKER_LOGIN)
    }
    if (runner.buildahLogin) {
      const file = join(runtime, 'containers/auth.json')
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, BUILDAH_LOGIN)
    }
    const session = await buildahSession(env, { login, mirrors: [] })
    try {
      const file = session.env.REGISTRY_AUTH_FILE
      const lookUps = buildahAuthFilePath(env, '/home/runner').replace(runtime, '$XDG_RUNTIME_DIR')
      if (!file) return { lookUps }
      expect(dirname(dirname(file))).toBe(jobTemp)
      return { given: await readFile(file, 'utf8'), lookUps }
    } finally {
      await session.dispose()
    }
  })
}

describe("buildahSession: the auth file buildah gets, which buildah's own default would be", () => {
  test('no login, no DOCKER_CONFIG: none given, buildah reads what `buildah login` wrote', async () => {
    expect(await authFileFor({ buildahLogin: true }, false)).toEqual({
      lookUps: '$XDG_RUNTIME_DIR/containers/auth.json',
    })
  })

  test('no login, DOCKER_CONFIG holding config.json: none given, buildah reads that file', async () => {
    const found = await authFileFor({ dockerConfig: 'logged-in', buildahLogin: true }, false)
    expect(found.given).toBeUndefined()
    expect(found.lookUps).toMatch(/olympe-buildah-docker-config-\w+\/config\.json$/)
  })

  test("no login, DOCKER_CONFIG without config.json, which buildah would refuse ('checking authfile'): a file of the step's own with the runner's buildah logins", async () => {
    expect(await authFileFor({ dockerConfig: 'empty', buildahLogin: true }, false)).toEqual({
      given: BUILDAH_LOGIN,
      lookUps: '$XDG_RUNTIME_DIR/containers/auth.json',
    })
    expect((await authFileFor({ dockerConfig: 'empty' }, false)).given).toBe('{"auths":{}}\n')
  })

  test("a login: a file of the step's own, starting from the logins buildah would read", async () => {
    expect((await authFileFor({ buildahLogin: true }, true)).given).toBe(BUILDAH_LOGIN)
    expect((await authFileFor({ dockerConfig: 'logged-in', buildahLogin: true }, true)).given).toBe(
      DOCKER_LOGIN,
    )
    expect((await authFileFor({ dockerConfig: 'empty', buildahLogin: true }, true)).given).toBe(
      BUILDAH_LOGIN,
    )
    expect((await authFileFor({}, true)).given).toBe('{"auths":{}}\n')
  })
})
