import { snapshotDefinition, type SnapshotInputName } from '../core/snapshot/definition.js'
import { checkSnapshot, type CheckedSnapshot } from '../core/snapshot/check.js'
import { runSnapshot } from '../core/snapshot/run.js'
import { runAction, type Action } from '../platform/run.js'
import type { Invocation } from '../platform/start.js'
import { systemClock } from '../tools/clock.js'
import { filesFor, nodeFiles } from '../tools/files.js'
import { createGitPort } from '../tools/git.js'
import { runToolkit } from '../tools/toolkit-runner.js'
import { isStepDebug } from '../platform/step-debug.js'

export const snapshotAction: Action<SnapshotInputName, CheckedSnapshot> = {
  definition: snapshotDefinition,
  check: (raw, context, platform) =>
    checkSnapshot(raw, context, {
      ...platform,
      files: nodeFiles,
      variable: (name) => process.env[name],
    }),
  cancelNote: () =>
    'No commit was pushed after the cancel; a push under way when it came may have reached its repository: check the branch before running the snapshot again.',
  async run(checked, context, platform) {
    const { cancel } = platform
    await runSnapshot(
      checked,
      { ...context, debug: isStepDebug(process.env) },
      {
        ...platform,
        git: createGitPort({ redact: platform.redact, signal: cancel.signal }),
        runToolkit: (command, args, options) => runToolkit(command, args, { ...options, cancel }),
        files: filesFor(cancel),
        clock: systemClock,
        variable: (name) => process.env[name],
        random: Math.random,
      },
    )
  },
}

/** The step, for the bundle's entry and for @github/local-action; importing it runs nothing. */
export const run = (invocation: Invocation = {}): Promise<void> =>
  runAction(snapshotAction, invocation)
