import { beforeAll, describe, expect, test } from '@jest/globals'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { join } from 'node:path'
import { useCleanup, useStarted } from '../helpers/suite.js'
import { NODES } from '../helpers/node-binaries.js'
import { runAsGithub, runCli, type RunResult } from '../helpers/run-action.js'
import { run as runProgram } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import {
  acceptedUnwatched,
  answer,
  sequence,
  startWebhookServer,
  type Responder,
} from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

const TOKEN = 'wh-token-7c1d9e2a4b'
const HOOK_PATH = '/hooks/5e6f7a8b9c0d-deploy-key'
const IMAGES = {
  'frontend-image': '127.0.0.1:5000/shop/frontend:main-1a2b3c4',
  'backend-images':
    '127.0.0.1:5000/shop/backend:main-1a2b3c4\n127.0.0.1:5000/shop/worker:main-1a2b3c4',
  'codeasdata-image': '127.0.0.1:5000/shop/codeasdata:main-1a2b3c4',
}
const EXPECTED_PAYLOAD = {
  frontend: { image: IMAGES['frontend-image'] },
  backends: {
    images: ['127.0.0.1:5000/shop/backend:main-1a2b3c4', '127.0.0.1:5000/shop/worker:main-1a2b3c4'],
    deployRules: [{ source: '.*', target: '.*' }],
  },
  codeAsData: { image: IMAGES['codeasdata-image'], updateMode: 'manual' },
  noDowntime: { promotionMode: 'manual' },
}

const cleanup = useCleanup()
const server = useStarted('webhook', () => startWebhookServer(answer(200), HOOK_PATH), cleanup)

const secrets = (): string[] => [TOKEN, server.url, HOOK_PATH, 'Bearer ' + TOKEN]
const captured = (run: RunResult): Record<string, string> => ({
  stdout: run.stdout,
  stderr: run.stderr,
  ...run.files,
})
/**
 * These tests are about the payload and the webhook call: the images are not in any registry,
 * so the image check (test/e2e/deploy-verify-images.test.ts) is off.
 */
const NO_CHECK = { 'verify-images': 'false' }
const withSecrets = (inputs: Record<string, string>): Record<string, string> => ({
  'webhook-url': server.url,
  'webhook-token': TOKEN,
  ...NO_CHECK,
  ...inputs,
})

describe.each(NODES)('the deploy bundle as the GitHub runner runs it, on $label', ({ binary }) => {
  test('sends the exact payload and headers, writes the outputs and the summary', async () => {
    server.respondWith(answer(200, { message: 'success' }))
    const run = await runAsGithub('deploy', { node: binary, inputs: withSecrets(IMAGES) })

    expect(run.code).toBe(0)
    expect(server.requests).toHaveLength(1)
    const [request] = server.requests
    expect(request?.method).toBe('POST')
    expect(request?.path).toBe(HOOK_PATH)
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`)
    expect(request?.headers['content-type']).toBe('application/json')
    expect(request?.headers.accept).toBe('application/json')
    expect(JSON.parse(request?.body ?? '')).toEqual(EXPECTED_PAYLOAD)
    expect(run.outputs).toEqual(acceptedUnwatched(request?.body))
    expectToSay(
      run.summary,
      '| Frontend image | 127.0.0.1:5000/shop/frontend:main-1a2b3c4 |',
      '| Status | 200 |',
    )
    expectToSay(
      run.stdout,
      '::add-mask::',
      '::group::Inputs\nwebhook-url: ***\nwebhook-token: ***\nallow-insecure-http: false\nfrontend-image: 127.0.0.1:5000/shop/frontend:main-1a2b3c4',
    )
    expectNoSecrets(captured(run), secrets())
  })
})

describe('failures through the GitHub bundle', () => {
  const page = '<html><body>Bad gateway</body></html>'
  test.each<[string, Responder, number, string]>([
    [
      '400 with a JSON error',
      answer(400, { error: 'invalid payload' }),
      1,
      'HTTP 400. Response body: {"error":"invalid payload"}',
    ],
    ['401', answer(401, { error: 'unauthorized' }), 1, 'HTTP 401 (check the webhook token'],
    ['403', answer(403, 'forbidden'), 1, 'HTTP 403'],
    ['404', answer(404, 'not found'), 1, 'HTTP 404 (check the webhook address'],
    ['413', answer(413, 'too large'), 1, 'HTTP 413 (the payload is too large'],
    ['500, never repeated', answer(500, page), 1, `HTTP 500. Response body: ${page}`],
    [
      '200 with another message',
      answer(200, { message: 'queued' }),
      1,
      'answered 200 but not with {"message": "success"}',
    ],
    ['200 with invalid JSON', answer(200, '{"message":'), 1, 'answered 200 but not with'],
    ['503 three times', answer(503, 'busy'), 3, 'Gave up after 3 attempts'],
    [
      'a redirect',
      answer(307, '', { Location: 'https://elsewhere.example.net/x' }),
      1,
      "a redirect to 'elsewhere.example.net'",
    ],
  ])('%s fails the step with a clear message', async (_name, responder, requests, message) => {
    server.respondWith(responder)
    const run = await runAsGithub('deploy', { inputs: withSecrets(IMAGES) })
    expect(run.code).toBe(1)
    expect(server.requests).toHaveLength(requests)
    expectToSay(run.stdout, '::error title=olympe deploy failed::', message)
    expect(run.summary).toContain('### olympe deploy failed')
    expectNoSecrets(captured(run), secrets())
  })

  test.each<[string, Responder, number]>([
    ['503 then success', sequence(answer(503), answer(200)), 2],
    ['503, 429 then success', sequence(answer(503), answer(429), answer(200)), 3],
    [
      '429 asking to wait 0 s, then success',
      sequence(answer(429, 'slow down', { 'Retry-After': '0' }), answer(200)),
      2,
    ],
  ])('%s succeeds after retrying', async (_name, responder, requests) => {
    server.respondWith(responder)
    const run = await runAsGithub('deploy', { inputs: withSecrets(IMAGES) })
    expect(run.code).toBe(0)
    expect(server.requests).toHaveLength(requests)
    expect(new Set(server.requests.map((r) => r.body)).size).toBe(1)
  })

  test('a hang fails at timeout-seconds, without a second POST', async () => {
    server.respondWith(() => undefined)
    const run = await runAsGithub('deploy', {
      inputs: withSecrets({ ...IMAGES, 'timeout-seconds': '2' }),
      timeoutMs: 60_000,
    })
    expect(run.code).toBe(1)
    expect(server.requests).toHaveLength(1)
    expect(run.stdout).toContain("did not complete within 'timeout-seconds' (2 s)")
  })

  test('a refused connection is retried, then fails', async () => {
    const closed = await startWebhookServer()
    const url = closed.url
    await closed.stop()
    const run = await runAsGithub('deploy', {
      inputs: { ...IMAGES, ...NO_CHECK, 'webhook-url': url, 'webhook-token': TOKEN },
    })
    expect(run.code).toBe(1)
    expect(run.stdout.match(/POST to the deployment webhook/g)).toHaveLength(3)
    expect(run.stdout).toContain('refused the connection (ECONNREFUSED). Gave up after 3 attempts')
    expectNoSecrets(captured(run), [TOKEN, url])
  })

  test.each<[string, Record<string, string>, string]>([
    ['no image at all', {}, 'Nothing to deploy'],
    [
      'an untagged image',
      { 'frontend-image': 'reg.example.com/shop/frontend' },
      "Invalid input 'frontend-image' 'reg.example.com/shop/frontend'",
    ],
    ['a bad boolean', { ...IMAGES, 'dry-run': 'yes' }, "Invalid input 'dry-run' 'yes'"],
    [
      'a bad mode',
      { ...IMAGES, 'promotion-mode': 'later' },
      "Invalid input 'promotion-mode' 'later'",
    ],
    [
      'a rule that does not compile',
      { ...IMAGES, 'deploy-rules': '- source: "(api"\n  target: ".*"' },
      'not a valid regular expression',
    ],
    [
      'a bad timeout',
      { ...IMAGES, 'timeout-seconds': 'soon' },
      "Invalid input 'timeout-seconds' 'soon'",
    ],
    [
      'a payload file that is not there',
      { ...IMAGES, 'payload-file': 'missing.json' },
      "Invalid input 'payload-file' 'missing.json': there is no file at ",
    ],
  ])('%s: exits 1 before sending anything, naming the input', async (_name, inputs, message) => {
    server.respondWith(answer(200))
    const run = await runAsGithub('deploy', { inputs: withSecrets(inputs) })
    expect(run.code).toBe(1)
    expect(server.requests).toHaveLength(0)
    expect(run.stdout).toContain(message)
    expectNoSecrets(captured(run), secrets())
  })

  test('a missing token is named, and nothing is sent', async () => {
    server.respondWith(answer(200))
    const run = await runAsGithub('deploy', {
      inputs: { ...IMAGES, ...NO_CHECK, 'webhook-url': server.url },
    })
    expect(run.code).toBe(1)
    expect(server.requests).toHaveLength(0)
    expect(run.stdout).toContain(
      "::error title=olympe deploy%3A invalid input 'webhook-token'::Invalid input 'webhook-token' (value hidden: secret): is required",
    )
  })
})

describe('a base payload file', () => {
  let workspace = ''
  beforeAll(async () => {
    workspace = await cleanup.tempDir('olympe-ws-')
    await writeFile(
      join(workspace, 'good.json'),
      JSON.stringify({
        frontend: {},
        backends: { images: ['r.io/shop/legacy:7'] },
        codeAsData: { updateMode: 'auto' },
      }),
    )
    await writeFile(
      join(workspace, 'unknown-key.json'),
      JSON.stringify({ backends: { images: [], rules: [] } }),
    )
    await writeFile(join(workspace, 'bad-arg.json'), JSON.stringify({ extraArgs: ['--prune'] }))
  })
  test.each([
    [
      'an unknown key, named with its path',
      'unknown-key.json',
      'at backends.rules: unknown key "rules": expected only "images", "deployRules"',
    ],
    [
      'an extra argument other than --force-sync',
      'bad-arg.json',
      "at extraArgs[0]: the only accepted value is '--force-sync'",
    ],
  ])('%s is refused before sending', async (_name, file, message) => {
    server.respondWith(answer(200))
    const run = await runAsGithub('deploy', {
      cwd: workspace,
      inputs: withSecrets({ ...IMAGES, 'payload-file': file }),
    })
    expect(run.code).toBe(1)
    expect(server.requests).toHaveLength(0)
    expect(run.stdout).toContain(message)
  })

  test('a UTF-8 byte order mark is accepted', async () => {
    await writeFile(join(workspace, 'bom.json'), `\uFEFF${JSON.stringify({ frontend: {} })}`)
    server.respondWith(answer(200))
    const run = await runAsGithub('deploy', {
      cwd: workspace,
      inputs: withSecrets({ ...IMAGES, 'payload-file': 'bom.json' }),
    })
    expect(run.code).toBe(0)
    expect(server.requests).toHaveLength(1)
  })

  test.each<[string, () => Promise<string>, string]>([
    [
      'a FIFO, which would block the step forever,',
      async () => {
        await runProgram('mkfifo', [join(workspace, 'fifo.json')])
        return 'fifo.json'
      },
      "Invalid input 'payload-file' 'fifo.json': it is not a regular file (a FIFO, a socket or a device), which the step could wait on forever; give the path of a JSON file.",
    ],
    [
      'a link to a device, which would never end,',
      async () => {
        await symlink('/dev/zero', join(workspace, 'zero.json'))
        return 'zero.json'
      },
      "Invalid input 'payload-file' 'zero.json': it resolves to '/dev/zero', outside the workspace '",
    ],
    [
      'a directory',
      async () => {
        await mkdir(join(workspace, 'payloads'))
        return 'payloads'
      },
      "Invalid input 'payload-file' 'payloads': it is a directory; give the path of a JSON file.",
    ],
    [
      'a file over 1 MiB',
      async () => {
        await writeFile(join(workspace, 'big.json'), `{${' '.repeat(1024 * 1024)}}`)
        return 'big.json'
      },
      "Invalid input 'payload-file' 'big.json': it is 1048578 bytes, more than the 1 MiB (1048576 bytes) a payload file may have; check that it is the right file.",
    ],
  ])('%s is refused at once, naming the input', async (_name, make, message) => {
    const path = await make()
    server.respondWith(answer(200))
    const run = await runAsGithub('deploy', {
      cwd: workspace,
      inputs: withSecrets({ ...IMAGES, 'payload-file': path }),
      timeoutMs: 60_000,
    })
    expect(run.code).toBe(1)
    expect(server.requests).toHaveLength(0)
    expect(run.stdout).toContain(
      `::error title=olympe deploy%3A invalid input 'payload-file'::${message}`,
    )
  })

  test('a file outside the workspace is never read: /etc/passwd, by its path or through a link', async () => {
    const passwd = await readFile('/etc/passwd', 'utf8')
    await symlink('/etc/passwd', join(workspace, 'passwd.json'))
    for (const [given, leads] of [
      ['/etc/passwd', "it resolves to '/etc/passwd',"],
      ['passwd.json', "it resolves to '/etc/passwd',"],
    ]) {
      server.respondWith(answer(200))
      const run = await runAsGithub('deploy', {
        cwd: workspace,
        inputs: withSecrets({ ...IMAGES, 'payload-file': given ?? '' }),
      })
      expect(run.code).toBe(1)
      expect(server.requests).toHaveLength(0)
      expect(run.stdout).toContain(
        `Invalid input 'payload-file' '${given}': ${leads} outside the workspace '${workspace}'; keep the payload file in the repository (a symbolic link that stays inside it is fine).`,
      )
      // Not a character of it.
      const shown = `${run.stdout}${run.stderr}${run.summary}`
      for (const line of passwd.split('\n').filter((l) => l.length > 6))
        expect(shown).not.toContain(line)
    }
  })

  test('a link that stays inside the workspace is followed, read and sent', async () => {
    await mkdir(join(workspace, 'deploy'), { recursive: true })
    await writeFile(
      join(workspace, 'deploy/base.json'),
      JSON.stringify({ codeAsData: { updateMode: 'auto' } }),
    )
    await symlink('deploy/base.json', join(workspace, 'linked.json'))
    server.respondWith(answer(200))
    const run = await runAsGithub('deploy', {
      cwd: workspace,
      inputs: withSecrets({ ...IMAGES, 'payload-file': 'linked.json' }),
    })
    expect(run.code).toBe(0)
    expect(JSON.parse(server.requests[0]?.body ?? '')).toMatchObject({
      codeAsData: { updateMode: 'auto' },
    })
  })

  test('the inputs set and append to it; an empty frontend group is never sent', async () => {
    server.respondWith(answer(200))
    const run = await runAsGithub('deploy', {
      cwd: workspace,
      inputs: withSecrets({ 'backend-images': 'r.io/shop/api:8', 'payload-file': 'good.json' }),
    })
    expect(run.code).toBe(0)
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      backends: {
        images: ['r.io/shop/legacy:7', 'r.io/shop/api:8'],
        deployRules: [{ source: '.*', target: '.*' }],
      },
      codeAsData: { updateMode: 'auto' },
      noDowntime: { promotionMode: 'manual' },
    })
  })
})

describe('outputs are never garbled by masking', () => {
  const PATH = '/deploy/9f8e7d6c5b4a'
  test("a webhook path of 'deploy' and a token: the payload output is the body sent, on both platforms", async () => {
    const hook = await startWebhookServer(answer(200), PATH)
    try {
      const inputs = {
        'webhook-url': hook.url,
        'webhook-token': TOKEN,
        'frontend-image': 'reg.example.com/deploy/frontend:deploy-1',
        'backend-images': 'reg.example.com/deploy/api:1',
        'deploy-rules': '[{"source": "deploy", "target": "^(?!deploy-old).*$"}]',
        ...NO_CHECK,
      }
      const github = await runAsGithub('deploy', { inputs })
      const body = hook.requests[0]?.body
      hook.respondWith(answer(200))
      const cli = await runCli('deploy', { inputs, env: { GITLAB_CI: 'true' } })
      expect([github.code, cli.code]).toEqual([0, 0])
      expect(body).toContain('"deployRules":[{"source":"deploy","target":"^(?!deploy-old).*$"}]')
      expect(github.outputs).toEqual(acceptedUnwatched(body))
      expect(cli.outputs).toEqual(github.outputs)
      for (const run of [github, cli])
        expectNoSecrets(captured(run), [TOKEN, hook.url, PATH, '9f8e7d6c5b4a'])
    } finally {
      await hook.stop()
    }
  })
})

describe('the same scenarios through the command line give the same payload', () => {
  const scenarios: Array<[string, Record<string, string>]> = [
    ['all images', IMAGES],
    [
      'frontend only, auto modes',
      {
        'frontend-image': IMAGES['frontend-image'],
        'codeasdata-update-mode': 'auto',
        'promotion-mode': 'auto',
      },
    ],
    [
      'backends with YAML rules',
      {
        'backend-images': IMAGES['backend-images'],
        'deploy-rules': '- source: worker\n  target: ^(?!api).*$\n- source: backend\n  target: api',
      },
    ],
    [
      'force sync only, skipping version updates',
      { 'force-sync': 'true', 'skip-update-versions': 'TRUE' },
    ],
  ]
  test.each(scenarios)('%s', async (_name, inputs) => {
    server.respondWith(answer(200))
    const github = await runAsGithub('deploy', { inputs: withSecrets(inputs) })
    server.respondWith(answer(200))
    const cli = await runCli('deploy', { inputs: withSecrets(inputs), env: { GITLAB_CI: 'true' } })
    expect([github.code, cli.code]).toEqual([0, 0])
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]?.body).toBe(github.outputs.payload)
    expect(cli.outputs).toEqual(github.outputs)
    expectNoSecrets(captured(cli), secrets())
  })

  test('flags work like INPUT_ variables, and a dry run sends nothing', async () => {
    server.respondWith(answer(200))
    const run = await runCli('deploy', {
      inputs: { 'webhook-url': server.url, 'webhook-token': TOKEN, ...NO_CHECK },
      args: ['--frontend-image', IMAGES['frontend-image'], '--dry-run'],
    })
    expect(run.code).toBe(0)
    expect(server.requests).toHaveLength(0)
    expectToSay(
      run.stdout,
      'Dry run: this request would be sent, and nothing was.',
      'Authorization: Bearer *** (webhook-token)',
    )
    expect(JSON.parse(run.outputs.payload ?? '')).toEqual({
      frontend: { image: IMAGES['frontend-image'] },
      codeAsData: { updateMode: 'manual' },
      noDowntime: { promotionMode: 'manual' },
    })
    expectNoSecrets(captured(run), secrets())
  })

  test('--help lists every input and exits 0 without doing anything', async () => {
    server.respondWith(answer(200))
    const run = await runCli('deploy', { inputs: {}, args: ['--help'] })
    expect(run.code).toBe(0)
    expect(server.requests).toHaveLength(0)
    for (const name of [
      '--webhook-url <value>',
      '--frontend-image <value>',
      '--dry-run',
      '--dotenv <file>',
    ]) {
      expect(run.stdout).toContain(name)
    }
  })

  test('a secret given as a flag works, is masked, and earns a warning', async () => {
    server.respondWith(answer(200))
    const run = await runCli('deploy', {
      inputs: { 'frontend-image': IMAGES['frontend-image'], ...NO_CHECK },
      args: ['--webhook-url', server.url, '--webhook-token', TOKEN],
    })
    expect(run.code).toBe(0)
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`)
    expectToSay(
      run.stderr,
      "Warning: The secret 'webhook-token' was given as a flag",
      'prefer the INPUT_WEBHOOK_TOKEN environment variable',
    )
    expectNoSecrets(captured(run), secrets())
  })

  test('an invalid input fails the same way', async () => {
    server.respondWith(answer(200))
    const run = await runCli('deploy', { inputs: withSecrets({ 'frontend-image': 'Bad:Image' }) })
    expect(run.code).toBe(1)
    expect(server.requests).toHaveLength(0)
    expect(run.stderr).toContain("Error: Invalid input 'frontend-image' 'Bad:Image'")
  })
})

export type { ServerResponse }
