import type { ActionDefinition } from '../definition.js'
import { CHECK_ONLY, flag, text, wholeNumber } from '../shared/inputs.js'
import {
  config,
  gitUserEmail,
  gitUserName,
  optionalPort,
  orchestratorHost,
  timeoutMinutes,
  toolkitCommand,
} from './input-parsers.js'

export const snapshotDefinition = {
  id: 'snapshot',
  name: 'Olympe snapshot',
  description:
    "Exports the code as data of Olympe projects with the platform's toolkit and commits it to git: clones each configured branch, commits only what changed, and pushes without ever force-pushing.",
  inputs: {
    config: {
      description:
        'Snapshot configuration (a JSON array of `{snapshooter, git}` entries, as the toolkit reads it): a JSON file, or a folder whose `*.json` files are joined. Relative to `working-directory`.',
      default: 'res/snapshot-config.json',
      parse: config,
    },
    'toolkit-command': {
      description:
        "Command that runs the toolkit's `snapshot`, split on spaces (quotes group words; no shell). `npx` is run with `--prefix <working-directory> --no`, so it uses your project's installed toolkit and never downloads one.",
      default: 'npx olympe snapshot',
      parse: toolkitCommand,
    },
    'toolkit-timeout-minutes': {
      description:
        "How long one entry's export may take. The toolkit never gives up on its own (an orchestrator that stops answering makes it wait for ever): after this time it is stopped, with every process it started, and the step fails. Decimals are allowed (`0.5` is 30 seconds).",
      default: '60',
      type: 'number',
      parse: timeoutMinutes,
    },
    'orchestrator-host': {
      description:
        "Orchestrator host name, without scheme (`ORCHESTRATOR_HOST` for the toolkit). Default: the toolkit's own (`localhost`).",
      parse: orchestratorHost,
    },
    'orchestrator-port': {
      description:
        "Orchestrator service port (`ORCHESTRATOR_SERVICE_PORT`). The toolkit uses TLS on 443 only: any other port sends the password and the session token in clear. Default: the toolkit's own (8080).",
      type: 'number',
      parse: optionalPort,
    },
    'draw-username': {
      description: 'Platform user the toolkit signs in as (`DRAW_USERNAME`).',
      ...text,
    },
    'draw-password': {
      description:
        'Password of `draw-username` (`DRAW_PASSWORD`; keep it in a secret). The toolkit drops the leading zeros of an all-digit value and surrounding quotes.',
      secret: true,
      ...text,
    },
    'git-user-name': {
      description:
        'Author and committer name of snapshot commits. Default: `github-actions[bot]` on GitHub, the user who started the pipeline on GitLab, else your git configuration.',
      parse: gitUserName,
    },
    'git-user-email': {
      description:
        'Author and committer e-mail of snapshot commits. Default: the same identity as `git-user-name`.',
      parse: gitUserEmail,
    },
    'push-attempts': {
      description:
        'How many times a push is tried when someone else pushed to the branch meanwhile (each retry fetches, re-applies the snapshot and commits again). Never a force push.',
      ...wholeNumber(1, 10, '3'),
    },
    'working-directory': {
      description:
        'Project folder, relative to the workspace: where `config` is read, where the toolkit is installed, and where entries without `git` are written.',
      ...text,
    },
    'dry-run': {
      description:
        'Clone and export, then report what would be committed (files added, changed, removed per entry) and push nothing.',
      ...flag('false'),
    },
    'check-only': CHECK_ONLY,
  },
  outputs: {
    changed: { description: '`true` when at least one commit was pushed.' },
    commits: {
      description:
        'JSON list of the pushed commits: `{name, repo, branch, sha, files, added, modified, deleted}` per entry (repo shown without its token).',
    },
  },
} as const satisfies ActionDefinition

export type SnapshotInputName = keyof typeof snapshotDefinition.inputs
