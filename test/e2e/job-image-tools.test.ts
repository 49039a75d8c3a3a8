// .ci/job-image/install-tools.sh, the job image's install step, where it does its work: in a
// container of the Debian base without Internet access (no name resolution), whose builders were
// taken out, so that apt must fetch them from DEBIAN_MIRROR, a loopback server that serves what
// deb.debian.org serves (it forwards there, as an instance's apt proxy would), bookworm's and the
// pinned trixie packages alike. On a base that holds everything, it fetches nothing.
import { beforeAll, expect, test } from '@jest/globals'
import { createServer, request, type Server } from 'node:http'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { useCleanup } from '../helpers/suite.js'
import { docker, ensureDockerDaemon } from '../helpers/docker-env.js'
import { ensureJobImageBases, INSTALL_TOOLS, type JobImageBases } from '../helpers/job-image.js'

const cleanup = useCleanup()
let bases: JobImageBases
let mirror: { url: string; paths: string[] }
let resolver: string

/** An apt mirror on loopback: each GET or HEAD forwarded to deb.debian.org, its path recorded. */
async function startAptMirror(): Promise<{ url: string; paths: string[]; server: Server }> {
  const paths: string[] = []
  const server = createServer((incoming, answer) => {
    paths.push(incoming.url ?? '')
    const forwarded = request(
      { host: 'deb.debian.org', path: incoming.url, method: incoming.method },
      (upstream) => {
        answer.writeHead(upstream.statusCode ?? 502, upstream.headers)
        upstream.pipe(answer)
      },
    )
    forwarded.on('error', () => answer.writeHead(502).end())
    forwarded.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { url: `http://127.0.0.1:${port}`, paths, server }
}

beforeAll(async () => {
  await ensureDockerDaemon()
  bases = await ensureJobImageBases()
  const started = await startAptMirror()
  cleanup.add('apt mirror', () => new Promise((resolve) => started.server.close(resolve)))
  mirror = started
  const scratch = await cleanup.tempDir('olympe-install-tools-')
  resolver = join(scratch, 'resolv.conf')
  await writeFile(resolver, 'nameserver 127.0.0.9\noptions timeout:1 attempts:1\n')
}, 900_000)

/** install-tools.sh in a throwaway container of the Debian base, after `before`; its output. */
function inBase(before: string, env: Record<string, string> = {}): Promise<string> {
  const script = `${before}\nsh /install-tools.sh >/tmp/install.log 2>&1 || { cat /tmp/install.log; exit 1; }\ntail -n 1 /tmp/install.log\ngit --version\ndocker buildx version\ncat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null | grep -v '^#' | grep -o 'https*://[^ ]*' | sort -u`
  const environment = Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`])
  return docker(
    [
      'run',
      '--rm',
      '--network',
      'host',
      '--volume',
      `${resolver}:/etc/resolv.conf:ro`,
      '--volume',
      `${INSTALL_TOOLS}:/install-tools.sh:ro`,
      ...environment,
      bases.debian,
      'sh',
      '-c',
      script,
    ],
    { timeoutMs: 600_000 },
  )
}

test('installs what is missing from DEBIAN_MIRROR, bookworm and trixie packages alike', async () => {
  // git from bookworm, the buildx plugin from trixie.
  const output = await inBase('dpkg --purge --force-depends git docker-buildx >/dev/null 2>&1', {
    DEBIAN_MIRROR: `${mirror.url}/`,
  })
  const lines = output.trim().split('\n')
  expect(lines[1]).toMatch(/^git version 2\.39\./)
  expect(lines[2]).toMatch(/^github\.com\/docker\/buildx 0\.13\./)
  // Every source now names the mirror: this machine's bookworm ones and the trixie one.
  expect(lines.slice(3)).toEqual([`${mirror.url}/debian`, `${mirror.url}/debian-security`])
  expect(mirror.paths).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^\/debian\/dists\/bookworm\/InRelease$/),
      expect.stringMatching(/^\/debian\/dists\/trixie\/InRelease$/),
      expect.stringMatching(/^\/debian\/pool\/main\/g\/git\/git_2\.39\.[^/]+_amd64\.deb$/),
      expect.stringMatching(
        /^\/debian\/pool\/main\/d\/docker-buildx\/docker-buildx_0\.13\.[^/]+\.deb$/,
      ),
    ]),
  )
}, 600_000)

test('a base that holds every package fetches nothing', async () => {
  const before = mirror.paths.length
  const output = await inBase('true', { DEBIAN_MIRROR: mirror.url })
  expect(output.split('\n')[0]).toBe('install-tools.sh: every package is installed already')
  expect(mirror.paths.length).toBe(before)
}, 300_000)
