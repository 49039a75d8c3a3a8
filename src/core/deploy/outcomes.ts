import { EXIT_CODES } from '../shared/exit-codes.js'
import { tableCell } from '../shared/markdown.js'
import { LIVE_POLLS, ROLLBACK_POLLS } from './rollout.js'

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
      "the app serves this deployment's build: its version changed to the expected one, or, the version unchanged, the files its frontend serves changed to this build's",
    when: `the app serves this deployment's build with a healthy status on ${LIVE_POLLS} polls in a row, and did not before the call: the expected version, where the app served another one; or, the version unchanged, the files of the frontend image's served-files label (\`version.json\`, \`index.html\`, the scripts it loads), where the app served others`,
    ending: 'success',
    step: 'succeeds',
  },
  unverified: {
    means:
      "the app answers with a healthy status, but nothing shows that it serves this build: the expected version is unknown, or it did not change and the frontend's files are unknown or the same as before the call",
    when: `the app answers with a healthy status on ${LIVE_POLLS} polls in a row, but nothing can show that it serves this build: the expected version is unknown; or it did not change, and the frontend image's served-files label could not be read, or the app already served those very files before the call (a backend alone, the same build again)`,
    ending: 'warning',
    step: `${WARNING}; fails with \`require-evidence: true\``,
  },
  'awaiting-promotion': {
    means:
      'manual promotion: the app did not switch within `wait-minutes`; with `preview-url`, the preview serves this build, which awaits its promotion',
    when: '`promotion-mode: manual` and the app did not serve this build within `wait-minutes`: with `preview-url`, the preview serves it (verified as the app would be); without it, the step cannot tell a pending promotion from a rollout that never reached the app, and says so',
    ending: 'warning',
    step: `${WARNING}; without \`preview-url\`, fails with \`require-evidence: true\``,
  },
  'timed-out': {
    means: '`wait-minutes` ran out and the app did not serve this build',
    when: '`wait-minutes` ran out without the above: the app (or, with `preview-url` and manual promotion, the preview) never served this build with a healthy status',
    ending: 'failure',
    step: 'fails, naming what was served and the status',
  },
  'rolled-back': {
    means: 'this build was served, then another one again',
    when: `this build was served, then another one on ${ROLLBACK_POLLS} polls in a row`,
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
