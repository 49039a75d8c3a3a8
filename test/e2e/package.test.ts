// The npm package as users get it: `npm pack` holds what they run and nothing else, and the
// package fetched by version from a registry runs from an empty folder, outside this checkout.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { useCleanup, useCorporateNetwork } from '../helpers/suite.js'
import { filesUnder } from '../helpers/file-tree.js'
import { lsFilesInRoot } from '../helpers/repo-copy.js'
import { ROOT } from '../helpers/run-action.js'
import { capture, run, type Captured } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { publishProject, startVerdaccio, type Verdaccio } from '../helpers/verdaccio.js'
import { answer } from '../helpers/webhook-server.js'
import { platformServingApp } from '../helpers/app-server.js'
import { expectToSay } from '../helpers/assertions.js'

/** What a job runs, the templates it may include, and the README; the guides stay in the repository. */
const SHIPPED = ['bin', 'dist', 'gitlab/*.yml', 'README.md', 'LICENSE', 'package.json']

/** The packed size the GitLab jobs fetch at every run (docs/performance.md measures that cost). */
const BUDGET_BYTES = 350 * 1024

/**
 * Text only undici holds (its error codes): the bundle leaves it out, and gives the two libraries
 * that import it a stand-in (scripts/build.js), because no path of ours runs their code that uses it.
 */
const UNDICI_MARKER = 'UND_ERR_'
/** Text only @actions/github holds: its chunk, which the command line loads in a GitHub job. */
const GITHUB_MARKER = 'GITHUB_EVENT_PATH'

describe('npm pack', () => {
  let out: string
  let size: number
  let packed: string[]
  const cleanup = useCleanup()
  beforeAll(async () => {
    out = await cleanup.tempDir('olympe-pack-list-')
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', out, ROOT],
      { cwd: out, env },
    )
    const [pack] = JSON.parse(stdout) as [{ filename: string; size: number }]
    size = pack.size
    await run('tar', ['-xzf', join(out, pack.filename), '-C', out])
    packed = await filesUnder(join(out, 'package'))
  }, 60_000)

  test(`packs to at most ${BUDGET_BYTES} bytes (350 KiB)`, () => {
    const over = `${size} bytes packed: ${size - BUDGET_BYTES} over the budget of ${BUDGET_BYTES} bytes (350 KiB). See what grew with \`npm pack --dry-run --json\`; a library only the GitHub actions load can be left out of the package as dist/.npmignore does.`
    expect(size <= BUDGET_BYTES ? 'within the budget' : over).toBe('within the budget')
  })

  test('holds no undici: no path of the command line runs the code that imports it', async () => {
    const holding: string[] = []
    for (const file of packed.filter((name) => /\.c?js$/.test(name)))
      if ((await readFile(join(out, 'package', file), 'utf8')).includes(UNDICI_MARKER))
        holding.push(file)
    expect(holding).toEqual([])
  })

  test("undici's stand-in: a ProxyAgent can be made; a request through it, or its fetch, says undici is not bundled", async () => {
    // As Node loads it from the package, in a process of its own.
    const stand = pathToFileURL(join(out, 'package/dist/undici-absent.cjs')).href
    const script = `const { ProxyAgent, fetch } = (await import(${JSON.stringify(stand)})).default
const agent = new ProxyAgent({ uri: 'http://proxy.example.com:3128' })
try { agent.request({ path: '/', method: 'GET' }) } catch (error) { console.log(error.message) }
await fetch('https://api.github.com/').catch((error) => console.log(error.message))`
    const result = await run(process.execPath, ['--input-type=module', '-e', script])
    expect(result.stdout.split('\n')).toEqual([
      "undici is not bundled: olympe-deploy-actions sends its requests with node:http, and a request through @actions/http-client's getAgentDispatcher() (fetch or Octokit through a proxy) needs undici, which scripts/build.js leaves out of dist/",
      "undici is not bundled: olympe-deploy-actions sends its requests with node:http, and @actions/github's getOctokit() (its fetch) needs undici, which scripts/build.js leaves out of dist/",
      '',
    ])
  })

  test('holds exactly bin/, dist/ (less the Actions cache client), gitlab/*.yml, README.md, LICENSE and package.json, as committed', async () => {
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
  const cleanup = useCleanup()
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
    expectToSay(
      result.stdout,
      '"image": "registry.example.com/shop/frontend:1.4.0"',
      'registry.example.com/shop/backend:1.4.0',
    )
    expect(await readdir(folder)).toEqual([])
    expectNoSecrets({ stdout: result.stdout, stderr: result.stderr }, [TOKEN, WEBHOOK])
  }, 120_000)
  // A corporate network: the webhook's host resolves only on the proxy's side, and its certificate
  // is signed by the company's own authority. Every request goes through @actions/http-client, as
  // packed: these runs fail if the package lacks what that path needs.
  describe('behind a proxy', () => {
    const HOST = 'deploy.olympe.test'
    const HOOK = '/hooks/3f9a1c2e-pack-proxy'
    const PROXY_TOKEN = 'npm-pack-proxy-token-8e4b'
    const FRONTEND = 'registry.example.com/shop/frontend:1.4.0'
    const { tls, webhook, proxy, hookUrl } = useCorporateNetwork({
      host: HOST,
      hookPath: HOOK,
      cleanup,
    })
    let hooksDir: string
    const network = (): Record<string, string> => ({
      HTTPS_PROXY: proxy.url,
      // npm itself fetches the package from the loopback registry directly (the mirror inside).
      npm_config_noproxy: '127.0.0.1',
      NODE_EXTRA_CA_CERTS: tls.caFile,
      INPUT_WEBHOOK_URL: hookUrl(),
      INPUT_WEBHOOK_TOKEN: PROXY_TOKEN,
    })
    const expectClean = (result: Captured): void =>
      expectNoSecrets({ stdout: result.stdout, stderr: result.stderr }, [
        PROXY_TOKEN,
        hookUrl(),
        HOOK,
      ])

    beforeAll(async () => {
      hooksDir = await cleanup.tempDir('olympe-pack-hooks-')
    })

    test('a GitLab job: the image check, the webhook call and the rollout watch go through its tunnels', async () => {
      // The platform's host serves the app too: version.json flips once the POST arrived.
      webhook.respondWith(platformServingApp(webhook, '1.3.0', '1.4.0'))
      const before = proxy.tunnels.length
      const result = await npx(
        [
          'deploy',
          '--frontend-image',
          FRONTEND,
          '--app-url',
          `https://${HOST}:${webhook.port}`,
          '--expected-version',
          '1.4.0',
          '--promotion-mode',
          'auto',
          '--poll-seconds',
          '1',
          '--wait-minutes',
          '0.5',
        ],
        { ...network(), GITLAB_CI: 'true' },
      )
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 0,
        stderr: `Warning: The frontend image '${FRONTEND}' could not be checked in registry 'registry.example.com': the proxy (HTTPS_PROXY or HTTP_PROXY) opened no tunnel to the server (it answered 502); check the proxy settings, or list the host in NO_PROXY. It is deployed unchecked ('verify-images: auto'); set 'verify-images: true' to require the check.\n`,
      })
      const paths = webhook.requests.map(
        (request) => `${request.method} ${request.path.replace(/\?.*$/, '')}`,
      )
      expect(paths).toContain(`POST ${HOOK}`)
      expect(webhook.requests.find((r) => r.method === 'POST')?.headers.authorization).toBe(
        `Bearer ${PROXY_TOKEN}`,
      )
      // The registry's CONNECT (answered 502), then one tunnel for each request to the platform.
      expect(proxy.tunnels.slice(before)).toEqual([
        'registry.example.com:443',
        ...paths.map(() => `${HOST}:${webhook.port}`),
      ])
      expect(result.stdout).toContain('Olympe rollout: live')
      expectClean(result)
    }, 120_000)

    test('a GitHub `run:` step: the command line loads @actions/github for the run, and calls the webhook through the tunnel', async () => {
      webhook.respondWith(answer(200, { message: 'success' }))
      // Every module Node loads, as its URL: module.register's hooks, which Node 20 has too.
      const log = join(hooksDir, 'loaded.txt')
      await writeFile(
        join(hooksDir, 'hooks.mjs'),
        `import { appendFileSync } from 'node:fs'\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(log)}, url + '\\n')\n  return next(url, context)\n}\n`,
      )
      await writeFile(
        join(hooksDir, 'register.mjs'),
        `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(hooksDir, 'hooks.mjs')).href)})\n`,
      )
      const workspace = join(hooksDir, 'workspace')
      await mkdir(workspace)
      const before = proxy.tunnels.length
      const result = await npx(
        ['deploy', '--frontend-image', FRONTEND, '--verify-images', 'false', '--wait-minutes', '0'],
        {
          ...network(),
          NODE_OPTIONS: `--import ${pathToFileURL(join(hooksDir, 'register.mjs')).href}`,
          GITHUB_ACTIONS: 'true',
          GITHUB_REPOSITORY: 'acme/shop',
          GITHUB_REF: 'refs/heads/main',
          GITHUB_SHA: '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b',
          GITHUB_EVENT_NAME: 'push',
          GITHUB_RUN_ID: '4242',
          GITHUB_WORKSPACE: workspace,
        },
      )
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' })
      expect(webhook.requests.map((r) => r.method)).toEqual(['POST'])
      expect(webhook.requests[0]?.headers.authorization).toBe(`Bearer ${PROXY_TOKEN}`)
      expect(proxy.tunnels.slice(before)).toEqual([`${HOST}:${webhook.port}`])
      const loaded = (await readFile(log, 'utf8'))
        .split('\n')
        .filter((url) => url.includes('/olympe-deploy-actions/dist/'))
        .map((url) => fileURLToPath(url))
      const dist = dirname(loaded.find((file) => file.endsWith('/dist/index.js')) ?? '')
      const github: string[] = []
      for (const name of await readdir(dist))
        if (
          name.endsWith('.js') &&
          (await readFile(join(dist, name), 'utf8')).includes(GITHUB_MARKER)
        )
          github.push(join(dist, name))
      expect(github).toHaveLength(1)
      expect(loaded).toEqual(expect.arrayContaining(github))
      expectClean(result)
    }, 120_000)
  })
})
