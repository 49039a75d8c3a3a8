/**
 * The command line's exit codes (GitLab jobs run it), all of them here so that none clashes with
 * another, nor with those of Node.js (1 for an uncaught error, 3 to 14 for its own failures) and
 * of shells (126 and 127, 128 and more for a signal).
 */
export const EXIT_CODES = {
  /** Done, and what the step set out to show was shown (a rollout: live). */
  success: 0,
  /** Failed: an input, the network, a server, a rollout that timed out or was rolled back. */
  failure: 1,
  /** The command line used wrongly: no command, an unknown one. */
  usage: 2,
  /**
   * Done, but not live as far as the step can show: a rollout that awaits a manual promotion,
   * or that nothing shows to serve the new build. The GitLab templates allow it
   * (`allow_failure: exit_codes`), so that the job and its pipeline pass with warnings.
   */
  notLive: 80,
} as const
