import type { Env } from '../core/shared/env.js'

/**
 * The step runs in debug mode: a re-run with debug logging on GitHub (RUNNER_DEBUG=1), or
 * CI_DEBUG_TRACE on GitLab. Tools that print secrets at their own debug level get it only then.
 */
export function isStepDebug(env: Env): boolean {
  return env.RUNNER_DEBUG === '1' || env.CI_DEBUG_TRACE === 'true'
}
