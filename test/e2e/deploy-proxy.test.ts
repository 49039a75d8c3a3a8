import { describe, expect, test } from '@jest/globals'
import { useCorporateNetwork } from '../helpers/suite.js'
import { runAsGithub, type RunResult } from '../helpers/run-action.js'
import { externalAddress } from '../helpers/connect-proxy.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { answer } from '../helpers/webhook-server.js'
import { platformServingApp } from '../helpers/app-server.js'

// A corporate network: the webhook host resolves only on the proxy's side, the proxy is the only
// way out, and the webhook's certificate is signed by the company's own authority.
const WEBHOOK_HOST = 'deploy.olympe.test'
const TOKEN = 'proxy-token-8d2f1c7e'
const HOOK_PATH = '/hooks/b7c6d5e4-corp'
const FRONTEND = 'registry.example.com/shop/frontend:main-1a2b3c4'

const address = externalAddress()
const {
  tls,
  webhook,
  proxy,
  hookUrl: url,
} = useCorporateNetwork({
  host: WEBHOOK_HOST,
  hookPath: HOOK_PATH,
  alsoNamed: [address],
  listen: '0.0.0.0',
})

/** The webhook call alone: the image check has a test of its own below. */
function deploy(
  host: string,
  env: Record<string, string>,
  verifyImages = 'false',
): Promise<RunResult> {
  return runAsGithub('deploy', {
    inputs: {
      'webhook-url': url(host),
      'webhook-token': TOKEN,
      'frontend-image': FRONTEND,
      'verify-images': verifyImages,
    },
    env,
  })
}

function expectClean(run: RunResult, host: string): void {
  expectNoSecrets({ stdout: run.stdout, stderr: run.stderr, ...run.files }, [
    TOKEN,
    url(host),
    HOOK_PATH,
  ])
}

/** A deploy to a webhook that accepts it, with the proxy tunnels it opened, in order. */
async function deployAccepted(
  host: string,
  env: Record<string, string>,
  verifyImages?: string,
): Promise<{ run: RunResult; tunnels: string[] }> {
  webhook.respondWith(answer(200, { message: 'success' }))
  const before = proxy.tunnels.length
  const run = await deploy(host, env, verifyImages)
  return { run, tunnels: proxy.tunnels.slice(before) }
}

describe('deploy behind a proxy, to a webhook with a private CA', () => {
  test('HTTPS_PROXY and NODE_EXTRA_CA_CERTS: the webhook is reached through the tunnel', async () => {
    const { run, tunnels } = await deployAccepted(WEBHOOK_HOST, {
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: tls.caFile,
    })
    expect(run.code).toBe(0)
    expect(run.outputs.status).toBe('200')
    expect(tunnels).toEqual([`${WEBHOOK_HOST}:${webhook.port}`])
    expect(webhook.requests).toHaveLength(1)
    expect(webhook.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`)
    expect(webhook.requests[0]?.headers['user-agent']).toMatch(
      /^olympe-deploy-actions\/\d+\.\d+\.\d+/,
    )
    expectClean(run, WEBHOOK_HOST)
  })

  test('lower-case https_proxy is honoured too', async () => {
    const { run, tunnels } = await deployAccepted(WEBHOOK_HOST, {
      https_proxy: proxy.url,
      NODE_EXTRA_CA_CERTS: tls.caFile,
    })
    expect(run.code).toBe(0)
    expect(tunnels).toHaveLength(1)
  })

  test('a host listed in NO_PROXY is reached directly', async () => {
    const { run, tunnels } = await deployAccepted(address, {
      HTTPS_PROXY: proxy.url,
      NO_PROXY: `intranet.example.com,${address}`,
      NODE_EXTRA_CA_CERTS: tls.caFile,
    })
    expect(run.code).toBe(0)
    expect(tunnels).toEqual([])
    expect(webhook.requests).toHaveLength(1)
  })

  test('the image check goes out through the same proxy; a registry it cannot reach is a warning', async () => {
    const { run, tunnels } = await deployAccepted(
      WEBHOOK_HOST,
      { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: tls.caFile },
      'auto',
    )
    expect(run.code).toBe(0)
    // One CONNECT for the registry (a proxy failure is not repeated), then the webhook's.
    expect(tunnels).toEqual(['registry.example.com:443', `${WEBHOOK_HOST}:${webhook.port}`])
    expect(run.stdout).toContain(
      `::warning title=Image not checked::The frontend image '${FRONTEND}' could not be checked in registry 'registry.example.com': the proxy (HTTPS_PROXY or HTTP_PROXY) opened no tunnel to the server (it answered 502)`,
    )
    expect(webhook.requests).toHaveLength(1)
    expectClean(run, WEBHOOK_HOST)
  })

  test('without the CA, the refused certificate is explained with NODE_EXTRA_CA_CERTS', async () => {
    const { run } = await deployAccepted(WEBHOOK_HOST, { HTTPS_PROXY: proxy.url })
    expect(run.code).toBe(1)
    expect(webhook.requests).toHaveLength(0)
    expect(run.stdout).toMatch(
      /::error title=olympe deploy failed::the server's TLS certificate was refused \([A-Z_]+\); if it is signed by a private certificate authority, give that authority's PEM file in the NODE_EXTRA_CA_CERTS environment variable of the step/,
    )
    expectClean(run, WEBHOOK_HOST)
  })

  test('the rollout watch goes out through the same proxy and trusts the same CA', async () => {
    // The platform's host serves the app too: version.json flips once the POST arrived.
    webhook.respondWith(platformServingApp(webhook, '1.3.0', '1.4.0'))
    const before = proxy.tunnels.length
    const run = await runAsGithub('deploy', {
      inputs: {
        'webhook-url': url(WEBHOOK_HOST),
        'webhook-token': TOKEN,
        'frontend-image': FRONTEND,
        'verify-images': 'false',
        'app-url': `https://${WEBHOOK_HOST}:${webhook.port}`,
        'expected-version': '1.4.0',
        'promotion-mode': 'auto',
        'poll-seconds': '1',
        'wait-minutes': '0.5',
      },
      env: { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: tls.caFile },
    })
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ rollout: 'live', 'live-version': '1.4.0' })
    const paths = webhook.requests.map(
      (request) => `${request.method} ${request.path.replace(/\?.*$/, '')}`,
    )
    expect(paths).toEqual([
      'GET /version.json',
      `POST ${HOOK_PATH}`,
      'GET /version.json',
      'GET /OlympeServer/status',
      'GET /version.json',
      'GET /OlympeServer/status',
    ])
    // Every request, polls included, through a tunnel of the proxy.
    expect(proxy.tunnels.slice(before)).toEqual(paths.map(() => `${WEBHOOK_HOST}:${webhook.port}`))
    expectClean(run, WEBHOOK_HOST)
  })
})
