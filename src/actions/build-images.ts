import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../core/build-images/definition.js'
import { nodeProjectFiles } from '../core/build-images/files.js'
import { parseBuildImagesInputs } from '../core/build-images/inputs.js'
import { runBuildImages } from '../core/build-images/run.js'
import type { Exec } from '../core/shared/exec.js'
import type { Action } from '../platform/run.js'
import type { CiContext } from '../platform/context.js'
import { isolatedDockerConfig } from '../tools/docker-config.js'
import { createDocker } from '../tools/docker.js'
import { exec } from '../tools/exec.js'

export const buildImagesAction: Action<BuildImagesInputName> = {
  definition: buildImagesDefinition,
  // docker writes base64(user:password) into its config; mask that form too.
  derivedSecrets: (raw) =>
    raw['registry-username'] && raw['registry-password']
      ? [Buffer.from(`${raw['registry-username']}:${raw['registry-password']}`).toString('base64')]
      : [],
  async run(raw, tools) {
    const context = await withLocalGitFacts(tools.context, exec)
    const inputs = parseBuildImagesInputs(raw, context)
    const session = inputs.credentials ? await isolatedDockerConfig(process.env) : undefined
    try {
      await runBuildImages(inputs, {
        ...tools,
        context,
        docker: createDocker(exec, session ? { env: session.env } : {}),
        files: nodeProjectFiles,
        now: () => new Date(),
      })
    } finally {
      await session?.dispose()
    }
  },
}

/**
 * Run by hand, there is no CI to say which branch and commit this is: ask git, so that the
 * branch gate and `{short-sha}` work as they would in CI. Outside a git repository both stay
 * unknown and the gate says so.
 */
async function withLocalGitFacts(context: CiContext, run: Exec): Promise<CiContext> {
  if (context.platform !== 'local') return context
  const ask = async (args: string[]): Promise<string | undefined> => {
    try {
      const result = await run('git', args, { cwd: context.workspace })
      const answer = result.stdout.trim()
      return result.code === 0 && answer !== '' && answer !== 'HEAD' ? answer : undefined
    } catch {
      return undefined
    }
  }
  return {
    ...context,
    branch: context.branch ?? (await ask(['rev-parse', '--abbrev-ref', 'HEAD'])),
    sha: context.sha ?? (await ask(['rev-parse', 'HEAD'])),
  }
}
