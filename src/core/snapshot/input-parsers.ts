import * as v from 'valibot'
import { decimalMinutes, refine } from '../shared/inputs.js'
import { isPortNumber, PORT_RANGE } from '../shared/port-number.js'
import { splitCommand } from './command.js'

/** The snapshot inputs that need a rule of their own, each from its text to its value. */

export const config = v.pipe(
  v.string(),
  v.check((raw) => raw !== '', 'is empty: give the path of the snapshot configuration'),
)

export const toolkitCommand = refine((raw) => splitCommand(raw))

/** A day: no export takes longer, and longer timers would overflow. */
export const TIMEOUT_MINUTES_MAX = 1440

export const timeoutMinutes = decimalMinutes({ max: TIMEOUT_MINUTES_MAX, example: 60 })

export const orchestratorHost = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (raw.includes('://'))
    return { problem: "expected a host name without a scheme, such as 'orchestrator.example.com'" }
  if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(raw))
    return { problem: "expected a host name or address, such as 'orchestrator.example.com'" }
  return raw
})

export const optionalPort = refine<number | undefined>((raw) => {
  if (raw === '') return undefined
  if (!isPortNumber(raw))
    return { problem: `expected a port number ${PORT_RANGE} (443 makes the toolkit use TLS)` }
  return Number(raw)
})

export const gitUserName = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (/[<>\n]/.test(raw)) return { problem: "a git name cannot hold '<', '>' or a line break" }
  return raw
})

export const gitUserEmail = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (!/^[^\s<>@]+@[^\s<>@]+$/.test(raw))
    return { problem: "expected an e-mail address such as 'snapshot-bot@example.com'" }
  return raw
})
