import { setTimeout as sleep } from 'node:timers/promises'
import { snapshotDefinition, type SnapshotInputName } from '../core/snapshot/definition.js'
import { parseSnapshotInputs } from '../core/snapshot/inputs.js'
import { runSnapshot } from '../core/snapshot/run.js'
import type { Action } from '../platform/run.js'
import { exec } from '../tools/exec.js'
import { createGitPort } from '../tools/git.js'
import { toolkitFiles } from '../tools/toolkit-files.js'

export const snapshotAction: Action<SnapshotInputName> = {
  definition: snapshotDefinition,
  async run(raw, tools) {
    const inputs = parseSnapshotInputs(raw)
    await runSnapshot(inputs, tools.context, {
      ...tools,
      git: createGitPort({ redact: tools.redact }),
      exec,
      files: toolkitFiles,
      variable: (name) => process.env[name],
      now: () => new Date(),
      sleep: async (ms) => {
        await sleep(ms)
      },
      random: Math.random,
    })
  },
}
