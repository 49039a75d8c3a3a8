// What an app serves reaches the GitHub job summary (its table, its note, its links): it shows as
// text wherever it lands, never as a link or markup of the app's choosing.
import { describe, expect, test } from '@jest/globals'
import { rollout, version } from '../helpers/app-server.js'
import { useDeployedApp } from '../helpers/suite.js'
import { runAsGithub } from '../helpers/run-action.js'

/** A version as version.json may hold it (visible ASCII, no space), that reads as a link. */
const HOSTILE = '[Promote-now](https://evil.example/promote)'
const SHOWN = '\\[Promote-now\\](https://evil.example/promote)'

const { app, webhook } = useDeployedApp()

describe('a version that reads as a Markdown link', () => {
  test('shows escaped in the summary table and in its note, and no link of it is made', async () => {
    app.play(rollout(HOSTILE, () => version(HOSTILE)))
    const run = await runAsGithub('deploy', {
      inputs: {
        'webhook-url': webhook.url,
        'webhook-token': 'summary-text-token-5c',
        'frontend-image': '127.0.0.1:5999/shop/frontend:main-1a2b3c4',
        'verify-images': 'false',
        'app-url': app.url,
        'expected-version': '1.4.0',
        'promotion-mode': 'manual',
        'poll-seconds': '1',
        'wait-minutes': '0.05',
      },
      timeoutMs: 90_000,
    })
    // Awaiting promotion: a warning, and the note says what was last seen.
    expect(run.code).toBe(0)
    expect(run.outputs.rollout).toBe('awaiting-promotion')
    const note = run.summary.split('\n').find((line) => line.startsWith('> The app at '))
    expect(note).toContain(`last seen: version ${SHOWN}, status HTTP 200`)
    expect(run.summary).toContain(`| Versions served | ${SHOWN} |`)
    // Nowhere an unescaped bracket before the link: no line of the summary renders it as one.
    expect(run.summary.replace(/\\\[/g, '')).not.toContain('[Promote-now]')
  })
})
