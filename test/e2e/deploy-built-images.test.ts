// Several backends, from build to payload: build-images builds three named backends (and the
// frontend) into the real registry, with auth, and deploy takes its `images` output as it is
// (`built-images`). The webhook (loopback) must receive each backend's image pinned by the digest
// pushed, and rules that give each backend exactly its own image and none to a name outside the
// list: the rules' regular expressions are evaluated here, as the platform would, on the pinned
// references and on the same references without their digest.
import { describe, expect, test } from '@jest/globals'
import { cp, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { deployedTo } from '../helpers/deploy-rules.js'
import { useCleanup, useServers } from '../helpers/suite.js'
import { SHA, startDockerSuite } from '../helpers/docker-suite.js'
import { runAsGithub, type RunResult } from '../helpers/run-action.js'
import { hostileCommands, runnerCommands } from '../helpers/runner-commands.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { answer, startWebhookServer } from '../helpers/webhook-server.js'

const WEBHOOK_TOKEN = 'whk-built-images-7c1e5b'
const BACKENDS = ['api', 'worker', 'billing'] as const

const { suite, webhook } = useServers(
  { suite: startDockerSuite, webhook: () => startWebhookServer(answer(200)) },
  useCleanup(),
  60_000,
)

interface Sent {
  frontend: { image: string }
  backends: { images: string[]; deployRules: Array<{ source: string; target: string }> }
}

function errorsOf(run: RunResult): string[] {
  return runnerCommands(run.stdout)
    .filter((command) => command.command === 'error')
    .map((command) => command.data.replace(/%0A/g, '\n').replace(/%25/g, '%'))
}

function warningsOf(run: RunResult): string[] {
  return runnerCommands(run.stdout)
    .filter((command) => command.command === 'warning')
    .map((command) => command.data.replace(/%0A/g, '\n').replace(/%25/g, '%'))
}

describe("deploy from build-images' images output", () => {
  let images = ''
  const digests: Record<string, string> = {}
  const references: Record<string, string> = {}
  const deployInputs = (inputs: Record<string, string>): Record<string, string> => ({
    'webhook-url': webhook.url,
    'webhook-token': WEBHOOK_TOKEN,
    'verify-images': 'true',
    'wait-minutes': '0',
    'registry-username': suite.registry.user,
    'registry-password': suite.registry.password,
    ...inputs,
  })

  test('three named backends: each gets exactly its own image, pinned or not; no other name gets one', async () => {
    const project = await suite.copyProject()
    // Each backend a code base of its own: its sources, and so its image, differ.
    for (const name of BACKENDS) {
      await mkdir(join(project, 'dist', name), { recursive: true })
      await cp(join(project, 'dist/node'), join(project, 'dist', name), { recursive: true })
      await writeFile(join(project, 'dist', name, 'which.txt'), name)
    }
    const repository = suite.uniqueRepository('built-images')
    const built = await runAsGithub('build-images', {
      cwd: project,
      inputs: {
        ...suite.pushInputs,
        backends: JSON.stringify(BACKENDS.map((name) => ({ name, sources: `dist/${name}` }))),
      },
      env: { ...suite.env, GITHUB_SHA: SHA, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: '11' },
      event: { name: 'workflow_dispatch', payload: { repository: { default_branch: 'main' } } },
    })
    expect({ code: built.code, errors: errorsOf(built) }).toEqual({ code: 0, errors: [] })
    images = built.outputs.images ?? ''
    const listed = JSON.parse(images) as Array<{
      kind: string
      name?: string
      reference: string
      digest: string
    }>
    for (const entry of listed) {
      const key = entry.name ?? entry.kind
      digests[key] = entry.digest
      references[key] = entry.reference
    }
    expect(Object.keys(digests).sort()).toEqual(['api', 'billing', 'frontend', 'worker'])

    const deployed = await runAsGithub('deploy', {
      inputs: deployInputs({ 'built-images': images }),
      env: { GITHUB_SHA: SHA, GITHUB_REPOSITORY: repository },
    })
    expect({ code: deployed.code, errors: errorsOf(deployed) }).toEqual({ code: 0, errors: [] })
    expect(warningsOf(deployed)).toEqual([])
    expect(webhook.requests).toHaveLength(1)
    const sent = JSON.parse(webhook.requests[0]?.body ?? '') as Sent
    const pinned = (key: string): string => `${references[key] ?? ''}@${digests[key] ?? ''}`
    expect(sent.frontend.image).toBe(pinned('frontend'))
    expect(sent.backends.images).toEqual(BACKENDS.map(pinned))
    expect(deployed.outputs.payload).toBe(webhook.requests[0]?.body)
    // The image check asked the registry by the digests pushed, and found them.
    expect(JSON.parse(deployed.outputs.digests ?? '')).toEqual(
      Object.fromEntries(['frontend', ...BACKENDS].map((key) => [pinned(key), digests[key]])),
    )

    const names = [...BACKENDS, 'legacy', 'api-old', 'xapi', 'worker2', '']
    const expected = (image: (key: string) => string): Record<string, string[]> => ({
      api: [image('api')],
      worker: [image('worker')],
      billing: [image('billing')],
      legacy: [],
      'api-old': [],
      xapi: [],
      worker2: [],
      '': [],
    })
    const rules = sent.backends.deployRules
    expect(deployedTo(rules, sent.backends.images, names)).toEqual(expected(pinned))
    const unpinned = (key: string): string => references[key] ?? ''
    expect(deployedTo(rules, BACKENDS.map(unpinned), names)).toEqual(expected(unpinned))
    // Nor does a backend take the frontend's image.
    expect(deployedTo(rules, [pinned('frontend'), unpinned('frontend')], names)).toEqual(
      Object.fromEntries(names.map((name) => [name, []])),
    )
    expect(hostileCommands(deployed.stdout)).toEqual([])
    expectNoSecrets(
      {
        ...(await suite.seenIn(built)),
        deployStdout: deployed.stdout,
        deployStderr: deployed.stderr,
        ...deployed.files,
      },
      [suite.registry.password, WEBHOOK_TOKEN],
    )
  }, 600_000)

  test("a fan-in's legs, one list per line, with 'deploy-rules': sent as given, a warning for the backend no rule reaches", async () => {
    expect(images).not.toBe('')
    const listed = JSON.parse(images) as unknown[]
    const legs = listed.map((entry) => JSON.stringify([entry])).join('\n')
    const rules = JSON.stringify([
      { source: 'backend-api', target: '^api$' },
      { source: 'backend-worker', target: '^worker$' },
    ])
    const before = webhook.requests.length
    const deployed = await runAsGithub('deploy', {
      inputs: deployInputs({ 'built-images': legs, 'deploy-rules': rules }),
    })
    expect(deployed.code).toBe(0)
    expect(webhook.requests).toHaveLength(before + 1)
    const sent = JSON.parse(webhook.requests.at(-1)?.body ?? '') as Sent
    expect(sent.backends.deployRules).toEqual(JSON.parse(rules))
    const billing = `${references.billing ?? ''}@${digests.billing ?? ''}`
    expect(warningsOf(deployed)).toEqual([
      `Backend image '${billing}' matches no deploy rule's source ('backend-api', 'backend-worker'): the platform will not deploy it to any backend.`,
      `The backend 'billing' of 'built-images' gets no image from 'deploy-rules': no rule whose target matches 'billing' has a source that matches a backend image of the payload, so the platform does not update it (its image is '${billing}'). Add a rule for it, or leave 'deploy-rules' empty to give each named backend its own image.`,
    ])
  }, 120_000)

  test('a digest the registry does not hold for that image is refused, and nothing is sent', async () => {
    expect(images).not.toBe('')
    const listed = JSON.parse(images) as Array<{ name?: string; digest: string }>
    // The worker's entry given the api's digest: a manifest its repository does not hold.
    const swapped = listed.map((entry) =>
      entry.name === 'worker' ? { ...entry, digest: digests.api ?? '' } : entry,
    )
    const before = webhook.requests.length
    const deployed = await runAsGithub('deploy', {
      inputs: deployInputs({ 'built-images': JSON.stringify(swapped) }),
    })
    expect(deployed.code).toBe(1)
    expect(webhook.requests).toHaveLength(before)
    const wrong = `${references.worker ?? ''}@${digests.api ?? ''}`
    expect(errorsOf(deployed)).toEqual([
      `The image check failed for 1 of 4 image(s), so the deployment was not requested ('verify-images: true' requires every image to be checked; 'auto' deploys those that cannot be checked with a warning):\n- The backend image '${wrong}' does not exist in registry '${suite.registry.host}' (HTTP 404, MANIFEST_UNKNOWN): check its tag or digest, and that it was pushed`,
    ])
  }, 120_000)
})
