import type { CancelReport } from '../shared/ports.js'

/**
 * How far a deployment got, for what the step says and leaves in its outputs when it is
 * cancelled: a POST is not idempotent, so whoever runs the step again must know whether the
 * platform may have received it.
 */
export type DeployPhase =
  /** No request reached the platform, or it answered that it did not act (429, 503). */
  | { kind: 'not-sent'; answered?: number }
  /** A request is under way and no answer came yet. */
  | { kind: 'sent' }
  /** The webhook answered `success`; the rollout is not watched, watched, or was watched. */
  | { kind: 'accepted'; status: number; watch: 'none' | 'running' | { ended: string } }

/** Told each time the deployment moves on; the platform keeps the last for a cancel. */
export type DeployProgress = (phase: DeployPhase) => void

/** What a cancel at `phase` says, and the `status` and `rollout` outputs it writes. */
export function cancelReport(phase: DeployPhase): CancelReport {
  switch (phase.kind) {
    case 'not-sent':
      return {
        note:
          phase.answered === undefined
            ? 'The deployment request was not sent: nothing was deployed.'
            : `The platform had answered HTTP ${phase.answered}, saying it did not act on the deployment request, and the step was waiting to send it again: nothing was deployed.`,
        outputs: { status: '', rollout: 'not-watched' },
      }
    case 'sent':
      return {
        note: "The deployment request was sent and no answer had come: the platform may have received it and may carry it out. Check the platform's deployment history (or the app) before running this step again, so that it is not deployed twice.",
        outputs: { status: '', rollout: 'not-watched' },
      }
    case 'accepted': {
      const accepted = `The webhook had accepted the deployment (HTTP ${phase.status}), and the platform carries it out`
      const status = String(phase.status)
      if (phase.watch === 'none')
        return {
          note: `${accepted}; the rollout was not watched.`,
          outputs: { status, rollout: 'not-watched' },
        }
      if (phase.watch === 'running')
        return {
          note: `${accepted}; the rollout watch was cancelled, so whether the new version serves was not checked: check the app.`,
          outputs: { status, rollout: 'cancelled' },
        }
      return {
        note: `${accepted}; the rollout watch had ended (${phase.watch.ended}).`,
        outputs: { status },
      }
    }
  }
}
