import { describe, expect, test } from '@jest/globals'
import { join } from 'node:path'
import { NODE24 } from '../helpers/node-binaries.js'
import { ROOT } from '../helpers/run-action.js'
import { capture } from '../helpers/run-process.js'

/**
 * The stand-ins other suites rely on must themselves behave like the real thing: the git server
 * refuses a wrong token and takes concurrent pushes, the fake toolkit honours the toolkit's
 * snapshot contract, the registry enforces its password. Their self-checks run here.
 */
describe('test doubles and real-part helpers', () => {
  const tsx = join(ROOT, 'node_modules/tsx/dist/cli.mjs')
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }

  test.each(['test/helpers/git-server.check.ts', 'test/helpers/docker-env.check.ts'])(
    '%s passes',
    async (script) => {
      const run = await capture(NODE24, [tsx, join(ROOT, script)], {
        env,
        cwd: ROOT,
        timeoutMs: 120_000,
      })
      expect({ code: run.code, stderr: run.stderr.slice(-2000) }).toEqual({
        code: 0,
        stderr: expect.any(String),
      })
    },
    150_000,
  )
})
