// The hand-over of spec steps 3 and 4: the build-images outputs feed the deploy bundle, and the
// platform's webhook (played on loopback) receives exactly the references that were pushed.
import { describe, expect, test } from '@jest/globals'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { deploys, rollout, startAppServer, version } from '../helpers/app-server.js'
import { useCleanup, useServers } from '../helpers/suite.js'
import { SAMPLE_PROJECT, SHA, startDockerSuite } from '../helpers/docker-suite.js'
import { runAsGithub } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { startWebhookServer } from '../helpers/webhook-server.js'

const WEBHOOK_TOKEN = 'whk-token-5e2a9d7c1b'

const { suite, webhook, app } = useServers(
  { suite: startDockerSuite, webhook: () => startWebhookServer(), app: startAppServer },
  useCleanup(),
  60_000,
)

describe('build-images then deploy', () => {
  test('the webhook receives exactly the pushed references', async () => {
    const repository = suite.uniqueRepository('handover')
    const built = await runAsGithub('build-images', {
      cwd: SAMPLE_PROJECT,
      inputs: {
        ...suite.pushInputs,
        codeasdata: 'true',
      },
      env: { ...suite.env, GITHUB_SHA: SHA, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: '9' },
      event: { name: 'workflow_dispatch', payload: { repository: { default_branch: 'main' } } },
    })
    expect(built.code).toBe(0)
    const outputs = built.outputs

    const deployed = await runAsGithub('deploy', {
      inputs: {
        'webhook-url': webhook.url,
        'webhook-token': WEBHOOK_TOKEN,
        'frontend-image': outputs['frontend-image'] ?? '',
        'backend-images': outputs['backend-image'] ?? '',
        'codeasdata-image': outputs['codeasdata-image'] ?? '',
        // The image check reads the same registry, with the same login, and must find them all.
        'verify-images': 'true',
        'registry-username': suite.registry.user,
        'registry-password': suite.registry.password,
      },
      env: { GITHUB_SHA: SHA, GITHUB_REPOSITORY: repository },
    })
    expect(deployed.code).toBe(0)
    expect(JSON.parse(deployed.outputs.digests ?? '')).toEqual(
      Object.fromEntries(
        ['frontend', 'backend', 'codeasdata'].map((kind) => [
          outputs[`${kind}-image`],
          outputs[`${kind}-digest`],
        ]),
      ),
    )
    expect(webhook.requests).toHaveLength(1)
    const request = webhook.requests[0]
    expect(request?.headers.authorization).toBe(`Bearer ${WEBHOOK_TOKEN}`)
    const payload = JSON.parse(request?.body ?? '') as {
      frontend: { image: string }
      backends: { images: string[] }
      codeAsData: { image: string }
    }

    // Each reference sent is one the registry serves, with the digest the build reported.
    const sent = {
      frontend: payload.frontend.image,
      backend: payload.backends.images,
      codeasdata: payload.codeAsData.image,
    }
    expect(sent).toEqual({
      frontend: outputs['frontend-image'],
      backend: [outputs['backend-image']],
      codeasdata: outputs['codeasdata-image'],
    })
    for (const kind of ['frontend', 'backend', 'codeasdata']) {
      const reference = outputs[`${kind}-image`] ?? ''
      const [name = '', tag = ''] = reference.slice(suite.registry.host.length + 1).split(':')
      const manifest = await suite.registry.manifest(name, tag)
      expect(manifest.digest).toBe(outputs[`${kind}-digest`])
    }

    expectNoSecrets(
      {
        buildStdout: built.stdout,
        buildStderr: built.stderr,
        ...built.files,
        deployStdout: deployed.stdout,
        deployStderr: deployed.stderr,
        ...Object.fromEntries(Object.entries(deployed.files).map(([k, v]) => [`deploy ${k}`, v])),
        'docker argv': (await suite.spy.commands()).join('\n'),
      },
      [suite.registry.password, WEBHOOK_TOKEN],
    )
  })

  test("every image gets the four OCI labels; deploy reads the version from the frontend image's and waits for the app to serve it", async () => {
    const repository = suite.uniqueRepository('rollout')
    const project = await suite.copyProject()
    // The project template's webpack build writes the project's version there.
    const release = `1.4.${process.pid}`
    await writeFile(join(project, 'dist/web/version.json'), JSON.stringify({ version: release }))
    const built = await runAsGithub('build-images', {
      cwd: project,
      inputs: {
        ...suite.pushInputs,
      },
      env: {
        ...suite.env,
        GITHUB_SHA: SHA,
        GITHUB_REPOSITORY: repository,
        GITHUB_SERVER_URL: 'https://github.example',
        GITHUB_RUN_ID: '10',
      },
      event: { name: 'workflow_dispatch', payload: { repository: { default_branch: 'main' } } },
    })
    expect(built.code).toBe(0)
    expect(built.outputs.version).toBe(release)
    for (const kind of ['frontend', 'backend']) {
      const reference = built.outputs[`${kind}-image`] ?? ''
      const [name = '', tag = ''] = reference.slice(suite.registry.host.length + 1).split(':')
      const labels = (await suite.registry.manifest(name, tag)).config.Labels ?? {}
      expect({ kind, labels }).toEqual({
        kind,
        labels: expect.objectContaining({
          'org.opencontainers.image.version': release,
          'org.opencontainers.image.revision': SHA,
          'org.opencontainers.image.source': `https://github.example/${repository}`,
          'org.opencontainers.image.created': expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        }),
      })
    }

    // The app serves the previous version until a moment after the platform accepts the call.
    app.play(
      rollout('1.3.9', (request) =>
        version((request.afterDeployMs ?? 0) >= 2000 ? release : '1.3.9'),
      ),
    )
    webhook.respondWith(deploys(app))
    const deployed = await runAsGithub('deploy', {
      inputs: {
        'webhook-url': webhook.url,
        'webhook-token': WEBHOOK_TOKEN,
        'frontend-image': built.outputs['frontend-image'] ?? '',
        'backend-images': built.outputs['backend-image'] ?? '',
        'verify-images': 'true',
        'registry-username': suite.registry.user,
        'registry-password': suite.registry.password,
        'app-url': app.url,
        'promotion-mode': 'auto',
        'poll-seconds': '1',
        'wait-minutes': '0.5',
      },
      env: { GITHUB_SHA: SHA, GITHUB_REPOSITORY: repository },
      timeoutMs: 90_000,
    })
    expect(deployed.code).toBe(0)
    expect(deployed.stdout).toContain(
      `Expected version: ${release} (from the org.opencontainers.image.version label of '${built.outputs['frontend-image'] ?? ''}').`,
    )
    expect(deployed.outputs).toMatchObject({
      rollout: 'live',
      'live-version': release,
      url: app.url,
    })
    expect(webhook.requests).toHaveLength(1)
    expect(app.served[0]).toBe('1.3.9')
    expect(app.served.slice(-2)).toEqual([release, release])
    expectNoSecrets(
      { deployStdout: deployed.stdout, ...deployed.files, buildStdout: built.stdout },
      [suite.registry.password, WEBHOOK_TOKEN],
    )
  })
})
