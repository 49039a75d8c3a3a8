import { EXIT_CODES } from '../shared/exit-codes.js'
import { tableCell } from '../shared/markdown.js'

/**
 * Live means this build (see evidence.ts) with a healthy status on LIVE_POLLS polls in a row: a
 * rolling update behind a load balancer answers old and new in turn, which is not live yet.
 * Rolled back means this build was served, then another one on ROLLBACK_POLLS polls in a row or
 * more, for at least `poll-seconds`: quick polls alone would take a rolling update's old answers
 * for a roll-back.
 */
export const LIVE_POLLS = 2
export const ROLLBACK_POLLS = 2

/** How the step ends for an outcome: green, a warning state, red, or as the webhook call went. */
export type StepEnding = 'success' | 'warning' | 'failure' | 'call'

interface OutcomeDocs {
  /** For the `rollout` output's description: what the value says. */
  means: string
  /** For the outcomes table: when the watch ends so. */
  when: string
  ending: StepEnding
  /** For the outcomes table: what the step then does. */
  step: string
}

const WARNING = `ends in a warning state: on GitLab exit code ${EXIT_CODES.notLive}, which the templates allow (the pipeline passes with warnings); on GitHub a warning and the summary's headline`

/**
 * The rollout outcomes, once: the `rollout` output's values, the type, the output's
 * documentation and the outcomes table derive from here. Only `live` is green.
 */
export const ROLLOUT_OUTCOMES = {
  live: {
    means:
      "the app serves this deployment's build: its version changed to the expected one (with no labelled file still served as before the call), or, the version unchanged, the files its frontend serves changed to this build's",
    when: `the app serves this deployment's build with a healthy status on ${LIVE_POLLS} polls in a row, and did not before the call: the expected version, where the app served another one or nothing (and, with the frontend image's served-files label, none of its files still served with the bytes it had before the call); or, the version unchanged or unknown before the call, every file of that label (\`version.json\`, \`index.html\`, the scripts it loads) as built, where the app served others`,
    ending: 'success',
    step: 'succeeds',
  },
  unverified: {
    means:
      "the app answers with a healthy status, but nothing shows that it serves this build: the expected version is unknown, or it did not change (or what was served before the call is unknown) and the frontend's files are unknown or the same as before the call; or a labelled file cannot be told from a stale one; or, with `preview-url` and manual promotion, the preview's build cannot be told apart",
    when: `the app answers with a healthy status on ${LIVE_POLLS} polls in a row, but nothing can show that it serves this build: the expected version is unknown; or it did not change, or what the app served before the call could not be read (it kept answering as a restarting app does), and the frontend image's served-files label is unknown, or the app already served those very files before the call (a backend alone, the same build again). At the end of \`wait-minutes\`, also: the expected version served with a labelled file that is neither as built nor known from before the call (it could not be read then); or, under manual promotion with \`preview-url\`, the app still serving the build before healthily while the preview answers with nothing that tells this build apart`,
    ending: 'warning',
    step: `${WARNING}; fails with \`require-evidence: true\``,
  },
  'awaiting-promotion': {
    means:
      'manual promotion: the app did not switch within `wait-minutes` and still serves the build before this deployment, healthy; with `preview-url`, the preview serves this build, which awaits its promotion',
    when: `\`promotion-mode: manual\`, the app did not serve this build within \`wait-minutes\`, and its last ${LIVE_POLLS} polls show the build it served before the call with a healthy status: with \`preview-url\`, the preview serves this build (verified as the app would be); without it, the step cannot tell a pending promotion from a rollout that never reached the app, and says so, with what to ask the platform's operator`,
    ending: 'warning',
    step: `${WARNING}; without \`preview-url\`, fails with \`require-evidence: true\``,
  },
  'timed-out': {
    means:
      '`wait-minutes` ran out and the app did not serve this build (or, at the end, answered errors or served a third version, whatever the promotion mode)',
    when: '`wait-minutes` ran out without the above: the app never served this build with a healthy status; whatever the promotion mode and whatever the preview shows, an app that answers errors at the end, or serves a third version (neither this build nor the one before the call), or whose build before the call is unknown; with `preview-url` and manual promotion, also a preview that never served this build',
    ending: 'failure',
    step: 'fails, naming what was served and the status',
  },
  'rolled-back': {
    means: 'this build was served, then another one again for at least `poll-seconds`',
    when: `this build was served, then another one on ${ROLLBACK_POLLS} polls in a row or more, over at least \`poll-seconds\` (the quick polls of the first minute alone never tell a roll-back)`,
    ending: 'failure',
    step: 'fails, saying so',
  },
  'not-watched': {
    means: 'no `app-url`, `wait-minutes` 0, a dry run, or a failed call',
    when: 'no `app-url`, `wait-minutes: 0`, a dry run, or a failed call',
    ending: 'call',
    step: 'as the call went (with a warning when there is no `app-url`)',
  },
  cancelled: {
    means: 'the step was cancelled during the watch; the webhook had accepted the deployment',
    when: 'the step is cancelled (SIGINT from the GitHub runner, SIGTERM from GitLab) while it watches',
    ending: 'failure',
    step: 'ends cancelled, saying that the webhook had accepted the deployment and that whether it serves was not checked',
  },
} as const satisfies Record<string, OutcomeDocs>

/** A value of the `rollout` output. */
export type RolloutOutput = keyof typeof ROLLOUT_OUTCOMES
/** How a watch that ran to its end ends. */
export type Outcome = Exclude<RolloutOutput, 'not-watched' | 'cancelled'>

export function endingOf(outcome: RolloutOutput): StepEnding {
  return ROLLOUT_OUTCOMES[outcome].ending
}

/** The `rollout` output's description. */
export function rolloutOutputDescription(): string {
  const values = Object.entries(ROLLOUT_OUTCOMES).map(
    ([value, docs]) => `\`${value}\` (${docs.means})`,
  )
  return `How the rollout watch ended: ${values.join('; ')}. Only \`live\` means that the new build serves.`
}

/** The outcomes table of the documentation. */
export function outcomesTable(): string {
  const rows = Object.entries(ROLLOUT_OUTCOMES).map(
    ([value, docs]) => `| \`${value}\` | ${tableCell(docs.when)} | ${tableCell(docs.step)} |`,
  )
  return ['| `rollout` | When | The step |', '|---|---|---|', ...rows].join('\n')
}
