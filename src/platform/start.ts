import type { ActionDefinition } from '../core/definition.js'
import type { CiContext } from '../core/shared/context.js'
import type { Env } from '../core/shared/env.js'
import { exec } from '../tools/exec.js'
import { usage } from './cli-args.js'
import { createCliRuntime } from './plain-runtime.js'
import { detectContext, platformLine, whichCi } from './context.js'
import type { Runtime } from './runtime.js'

/** How an action was started: as a step by the runner, or by the command line with its words. */
export interface Invocation {
  /** The command line's arguments after the command; absent for a step. */
  argv?: readonly string[]
}

export interface Started {
  runtime: Runtime
  context: CiContext
  /** The step's first line: the platform detected, and why (see platformLine). */
  platformLine: string
}

/**
 * The one place that tells GitHub, GitLab and a local run apart. A step on the GitHub runner
 * speaks the runner's protocol (@actions/core, loaded only there); everything else, the command
 * line inside a GitHub job included, is the command-line runtime, which reads the environment
 * and its flags. Undefined when there is nothing to run: `--help` was asked and printed.
 */
export async function startPlatform(
  definition: ActionDefinition,
  invocation: Invocation,
  env: Env,
  cwd: string,
): Promise<Started | undefined> {
  const ci = whichCi(env)
  let runtime: Runtime
  if (ci === 'github' && invocation.argv === undefined) {
    const { createGithubRuntime } = await import('./github.js')
    runtime = createGithubRuntime(env)
  } else {
    runtime = createCliRuntime(definition, ci, env, invocation.argv ?? process.argv.slice(2))
  }
  if (runtime.cliArgs?.options.help) {
    process.stdout.write(`${usage(definition)}\n`)
    return undefined
  }
  return {
    runtime,
    context: await detectContext(env, cwd, exec),
    platformLine: platformLine(env, invocation.argv !== undefined),
  }
}
