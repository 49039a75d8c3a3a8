/**
 * How a step that did not fail ended. `notLive`: its work is done, but what it set out to show
 * was not shown (a rollout that awaits a promotion, or that nothing shows to serve the new
 * build); the value is the headline of its warning. The command line then exits with
 * EXIT_CODES.notLive; a GitHub step has no such state, and ends green with the warning.
 */
export interface StepEnd {
  notLive?: string
}
