import * as v from 'valibot'
import type { RawInputs } from '../definition.js'
import { parseInputs, refine } from '../shared/inputs.js'
import { booleanInput, integerInput, optionalText } from '../shared/parse.js'
import { splitCommand } from './command.js'
import { snapshotDefinition, type SnapshotInputName } from './definition.js'

/** The snapshot action's inputs, validated and typed. */
export interface SnapshotInputs {
  config: string
  toolkitCommand: string[]
  toolkitTimeoutMinutes: number
  orchestratorHost?: string
  orchestratorPort?: number
  drawUsername?: string
  drawPassword?: string
  gitUserName?: string
  gitUserEmail?: string
  pushAttempts: number
  dryRun: boolean
  workingDirectory?: string
}

const config = v.pipe(
  v.string(),
  v.check((raw) => raw !== '', 'is empty: give the path of the snapshot configuration'),
)

const toolkitCommand = refine((raw) => splitCommand(raw))

/** A day: no export takes longer, and longer timers would overflow. */
export const TIMEOUT_MINUTES_MAX = 1440

const timeoutMinutes = refine<number>((raw) => {
  const minutes = Number(raw)
  if (!/^\d+(\.\d+)?$/.test(raw) || minutes <= 0 || minutes > TIMEOUT_MINUTES_MAX)
    return {
      problem: `expected a number of minutes above 0 and up to ${TIMEOUT_MINUTES_MAX}, such as 60 (decimals allowed: 0.5 is 30 seconds)`,
    }
  return minutes
})

const orchestratorHost = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (raw.includes('://'))
    return { problem: "expected a host name without a scheme, such as 'orchestrator.example.com'" }
  if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(raw))
    return { problem: "expected a host name or address, such as 'orchestrator.example.com'" }
  return raw
})

const optionalPort = refine<number | undefined>((raw) => {
  if (raw === '') return undefined
  const port = Number(raw)
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535)
    return { problem: 'expected a port number from 1 to 65535 (443 makes the toolkit use TLS)' }
  return port
})

const gitUserName = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (/[<>\n]/.test(raw)) return { problem: "a git name cannot hold '<', '>' or a line break" }
  return raw
})

const gitUserEmail = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (!/^[^\s<>@]+@[^\s<>@]+$/.test(raw))
    return { problem: "expected an e-mail address such as 'snapshot-bot@example.com'" }
  return raw
})

const SnapshotInputsSchema = v.pipe(
  v.object({
    config,
    'toolkit-command': toolkitCommand,
    'toolkit-timeout-minutes': timeoutMinutes,
    'orchestrator-host': orchestratorHost,
    'orchestrator-port': optionalPort,
    'draw-username': optionalText,
    'draw-password': optionalText,
    'git-user-name': gitUserName,
    'git-user-email': gitUserEmail,
    'push-attempts': integerInput(1, 10),
    'dry-run': booleanInput,
    'working-directory': optionalText,
  }),
  v.transform((i): SnapshotInputs => ({
    config: i.config,
    toolkitCommand: i['toolkit-command'],
    toolkitTimeoutMinutes: i['toolkit-timeout-minutes'],
    orchestratorHost: i['orchestrator-host'],
    orchestratorPort: i['orchestrator-port'],
    drawUsername: i['draw-username'],
    drawPassword: i['draw-password'],
    gitUserName: i['git-user-name'],
    gitUserEmail: i['git-user-email'],
    pushAttempts: i['push-attempts'],
    dryRun: i['dry-run'],
    workingDirectory: i['working-directory'],
  })),
)

export function parseSnapshotInputs(raw: RawInputs<SnapshotInputName>): SnapshotInputs {
  return parseInputs(snapshotDefinition, SnapshotInputsSchema, raw)
}
