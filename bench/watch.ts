// The rollout watch's verdict latency: how long after a loopback app starts serving the new build
// the deploy bundle, run as the runner runs it with the default 'poll-seconds' and 'wait-minutes',
// ends `live`. The app switches a set time after the webhook's answer; each switch time is run
// in turn by the bundle and by baseline (a), a hand-written watch (curl every 15 s until two polls
// in a row give the new version: the deploy step's own watch before it polled quickly at first),
// in the same run. The app counts every request it gets, for the polls' rate.
import { join } from 'node:path'
import { deploys, rollout, startAppServer, version } from '../test/helpers/app-server.js'
import { runAsGithub } from '../test/helpers/run-action.js'
import { startWebhookServer, type Responder } from '../test/helpers/webhook-server.js'
import { measure, median } from './measure.js'

const ROOT = join(import.meta.dirname, '..')
const TOKEN = 'bench-token-1234'
const OLD = '1.3.0'
const NEW = '1.4.0'
/** The default `poll-seconds`, which the baseline polls at too. */
export const WATCH_POLL_SECONDS = 15
/**
 * When the app starts serving the new build, in seconds after the webhook's answer: five in the
 * first minute, at different places between two quick polls (2 s apart: 1.9, 1.3, 0.7, 1.1 and
 * 1.5 s before the next one), and one after it, about 5 s after a poll of every `poll-seconds`.
 */
export const WATCH_SWITCHES = [6.1, 20.7, 33.3, 46.9, 58.5, 80]

export interface WatchFigure {
  /** When the app starts serving the new build, seconds after the webhook's answer. */
  switchSeconds: number
  /** Seconds from then to the verdict (the step's end), each round: the deploy bundle. */
  bundle: number[]
  /** The same for baseline (a). */
  baseline: number[]
  /** Their medians. */
  bundleSeconds: number
  baselineSeconds: number
  /** The bundle's version.json polls per second of watch, the highest of the rounds. */
  pollsPerSecond: number
  /** Every request it made to the app (the status route too) per second, the highest. */
  requestsPerSecond: number
}

export interface WatchResult {
  rounds: number
  pollSeconds: number
  figures: WatchFigure[]
}

export async function benchWatch(rounds: number): Promise<WatchResult> {
  const app = await startAppServer()
  let acceptedAt = 0
  const accept: Responder = (request, index, res) => {
    acceptedAt ||= Date.now()
    return deploys(app)(request, index, res)
  }
  const webhook = await startWebhookServer(accept)
  /** One run: seconds from the switch to the end, and the app's requests after the answer. */
  const once = async (
    candidate: () => Promise<void>,
    switchMs: number,
  ): Promise<{ seconds: number; polls: number; requests: number; watchedSeconds: number }> => {
    app.play(
      rollout(OLD, (request) => version((request.afterDeployMs ?? 0) >= switchMs ? NEW : OLD)),
    )
    acceptedAt = 0
    await candidate()
    const ended = Date.now()
    if (acceptedAt === 0) throw new Error('the webhook was never called')
    const after = app.requests.filter((request) => request.afterDeployMs !== undefined)
    return {
      seconds: (ended - (acceptedAt + switchMs)) / 1000,
      polls: after.filter((request) => request.route === 'version').length,
      requests: after.length,
      watchedSeconds: (ended - acceptedAt) / 1000,
    }
  }
  const bundle = async (): Promise<void> => {
    const run = await runAsGithub('deploy', {
      inputs: {
        'webhook-url': webhook.url,
        'webhook-token': TOKEN,
        'frontend-image': 'reg.example.com/shop/frontend:main-1a2b3c4',
        'verify-images': 'false',
        'app-url': app.url,
        'expected-version': NEW,
      },
      timeoutMs: 10 * 60_000,
    })
    if (run.code !== 0 || run.outputs.rollout !== 'live')
      throw new Error(`the deploy bundle did not end live: ${run.stdout.slice(-2000)}`)
  }
  const baseline = async (): Promise<void> => {
    const sample = await measure('bash', [join(ROOT, 'bench/baselines/watch-curl.sh')], {
      PATH: process.env.PATH ?? '',
      WEBHOOK_URL: webhook.url,
      WEBHOOK_TOKEN: TOKEN,
      APP_URL: app.url,
      EXPECTED: NEW,
      POLL_SECONDS: String(WATCH_POLL_SECONDS),
    })
    if (sample.code !== 0) throw new Error(`the curl watch failed: ${sample.stderr ?? ''}`)
  }
  try {
    const figures: WatchFigure[] = WATCH_SWITCHES.map((switchSeconds) => ({
      switchSeconds,
      bundle: [],
      baseline: [],
      bundleSeconds: 0,
      baselineSeconds: 0,
      pollsPerSecond: 0,
      requestsPerSecond: 0,
    }))
    for (let round = 0; round < rounds; round++)
      for (const figure of figures) {
        const switchMs = figure.switchSeconds * 1000
        const ours = await once(bundle, switchMs)
        figure.bundle.push(ours.seconds)
        figure.pollsPerSecond = Math.max(figure.pollsPerSecond, ours.polls / ours.watchedSeconds)
        figure.requestsPerSecond = Math.max(
          figure.requestsPerSecond,
          ours.requests / ours.watchedSeconds,
        )
        figure.baseline.push((await once(baseline, switchMs)).seconds)
      }
    for (const figure of figures) {
      figure.bundleSeconds = median(figure.bundle)
      figure.baselineSeconds = median(figure.baseline)
    }
    return { rounds, pollSeconds: WATCH_POLL_SECONDS, figures }
  } finally {
    await webhook.stop()
    await app.stop()
  }
}
