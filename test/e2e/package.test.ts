// The npm package as users get it: `npm pack` holds what they run and nothing else, and the
// package fetched by version from a registry runs from an empty folder, outside this checkout.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals'
import { readdir, readFile } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { Cleanup } from '../helpers/cleanup.js'
import { lsFilesInRoot } from '../helpers/repo-copy.js'
import { ROOT } from '../helpers/run-action.js'
import { capture, run, type Captured } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { publishProject, startVerdaccio, type Verdaccio } from '../helpers/verdaccio.js'

/** What a job runs, the templates it may include, and the README; the guides stay in the repository. */
const SHIPPED = ['bin', 'dist', 'gitlab/*.yml', 'README.md', 'LICENSE', 'package.json']

describe('npm pack', () => {
  let out: string
  const cleanup = new Cleanup()
  beforeAll(async () => {
    out = await cleanup.tempDir('olympe-pack-list-')
  })
  afterAll(() => cleanup.run())

  test('holds exactly bin/, dist/ (less the Actions cache client), gitlab/*.yml, README.md, LICENSE and package.json, as committed', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', out, ROOT],
      { cwd: out, env },
    )
    const [{ filename, size }] = JSON.parse(stdout) as [{ filename: string; size: number }]
    // The GitLab jobs fetch it at every run (docs/performance.md measures what that costs).
    expect(size).toBeLessThan(350 * 1024)
    const listing = await run('tar', ['-tzf', join(out, filename)])
    const packed = listing.stdout
      .split('\n')
      .filter((line) => line !== '' && !line.endsWith('/'))
      .map((line) => line.replace(/^package\//, ''))
      .sort()
    // dist/.npmignore names the Actions cache client's chunk, which only the actions load.
    const leftOut = (await readFile(join(ROOT, 'dist/.npmignore'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((name) => `dist/${name}`)
    expect(leftOut).toHaveLength(1)
    const committed = (await run('git', [...lsFilesInRoot, ...SHIPPED], { cwd: ROOT })).stdout
      .split('\n')
      .filter((line) => line !== '' && line !== 'dist/.npmignore' && !leftOut.includes(line))
      .sort()
    expect(new Set(packed.map((path) => path.split('/')[0]))).toEqual(
      new Set(SHIPPED.map((path) => path.split('/')[0])),
    )
    expect(packed).toEqual(committed)
  })
})

describe('the published package, run from a clean folder', () => {
  const TOKEN = 'npm-pack-webhook-token-51c7'
  const WEBHOOK = 'https://deploy.example.invalid/hooks/7d1e9b3f-pack'
  let registry: Verdaccio
  let version: string
  let home: string
  let folder: string
  // No node_modules/.bin of this checkout on PATH: only what npx fetches can answer.
  const PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules'))
    .join(delimiter)
  const cleanup = new Cleanup()
  const npx = (args: string[], env: Record<string, string> = {}): Promise<Captured> =>
    capture('npx', ['--yes', `olympe-deploy-actions@${version}`, ...args], {
      env: {
        PATH,
        HOME: home,
        npm_config_registry: registry.url,
        npm_config_cache: join(home, 'npm-cache'),
        npm_config_update_notifier: 'false',
        ...env,
      },
      cwd: folder,
      timeoutMs: 120_000,
    })

  beforeAll(async () => {
    registry = cleanup.track('verdaccio', await startVerdaccio())
    ;({ version } = await publishProject(registry))
    home = await cleanup.tempDir('olympe-pack-home-')
    folder = await cleanup.tempDir('olympe-pack-clean-')
  }, 120_000)
  afterAll(() => cleanup.run())

  test('`olympe-deploy --version` prints the version npx asked for', async () => {
    const result = await npx(['--version'])
    expect({ code: result.code, stdout: result.stdout }).toEqual({
      code: 0,
      stdout: `${version}\n`,
    })
  }, 120_000)

  test('a deploy dry run prints the payload, sends nothing and leaves the folder empty', async () => {
    const result = await npx(
      [
        'deploy',
        '--frontend-image',
        'registry.example.com/shop/frontend:1.4.0',
        '--backend-images',
        'registry.example.com/shop/backend:1.4.0',
        '--dry-run',
        // No registry holds these: the image check has tests of its own.
        '--verify-images',
        'false',
      ],
      { INPUT_WEBHOOK_URL: WEBHOOK, INPUT_WEBHOOK_TOKEN: TOKEN },
    )
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
      code: 0,
      stderr: '',
    })
    expect(result.stdout).toContain('"image": "registry.example.com/shop/frontend:1.4.0"')
    expect(result.stdout).toContain('registry.example.com/shop/backend:1.4.0')
    expect(await readdir(folder)).toEqual([])
    expectNoSecrets({ stdout: result.stdout, stderr: result.stderr }, [TOKEN, WEBHOOK])
  }, 120_000)
})
