/**
 * How the GitHub runner reads a step's output as workflow commands (actions/runner
 * ActionCommandManager with ActionCommand.TryParseV2 and TryParse), for tests to check that no
 * untrusted text issues one. Lines end at \n, \r\n or a lone \r (.NET's ReadLine). A line is a
 * command when, after leading white space, it reads `::name props::data` with a registered name
 * (any case), or when it holds `##[name props]data` anywhere. `::stop-commands::<token>` pauses
 * processing until a line `::<token>::`. Stricter than the runner in one way: invisible
 * characters are skipped, as the runner's culture-sensitive comparisons may skip them.
 */
const REGISTERED = [
  'add-mask',
  'add-matcher',
  'add-path',
  'debug',
  'echo',
  'endgroup',
  'error',
  'group',
  'notice',
  'remove-matcher',
  'save-state',
  'set-env',
  'set-output',
  'stop-commands',
  'warning',
]

export interface SeenCommand {
  command: string
  properties: string
  data: string
}

export function runnerCommands(output: string): SeenCommand[] {
  const seen: SeenCommand[] = []
  let stopToken: string | undefined
  for (const line of output.split(/\r\n|\r|\n/)) {
    const command = parseLine(line, stopToken)
    if (!command) continue
    if (stopToken !== undefined) {
      if (command.command.toLowerCase() === stopToken.toLowerCase()) stopToken = undefined
    } else if (command.command.toLowerCase() === 'stop-commands') stopToken = command.data
    else seen.push(command)
  }
  return seen
}

function parseLine(raw: string, stopToken: string | undefined): SeenCommand | undefined {
  const registered = new Set([...REGISTERED, ...(stopToken ? [stopToken.toLowerCase()] : [])])
  return parseAs(raw, registered) ?? parseAs(raw.replace(/[\p{Cf}\p{Cc}\p{M}]/gu, ''), registered)
}

function parseAs(line: string, registered: Set<string>): SeenCommand | undefined {
  const v2 = /^[\s\u0085]*::([^ :]*)( [^:]*)?::(.*)$/su.exec(line)
  if (v2 && registered.has((v2[1] ?? '').toLowerCase()))
    return { command: v2[1] ?? '', properties: (v2[2] ?? '').trim(), data: v2[3] ?? '' }
  const legacy = /##\[([^ \]]*)( [^\]]*)?\](.*)$/su.exec(line)
  if (legacy && registered.has((legacy[1] ?? '').toLowerCase()))
    return { command: legacy[1] ?? '', properties: (legacy[2] ?? '').trim(), data: legacy[3] ?? '' }
  return undefined
}

/** Lines that a hostile tool or server prints to issue commands, each marked `hostile`. */
export const HOSTILE_LINES = [
  '::add-mask::hostile-mask',
  '::set-output name=a::hostile-output',
  '::error::hostile-error',
  '::warning title=INJECTED::hostile-warning',
  '   ::notice::hostile-indented',
  '\u200b::error::hostile-zero-width',
  'progress 50% ##[error]hostile-legacy',
  '::SET-OUTPUT name=b::hostile-upper-case',
  '::stop-commands::hostile-token',
  '::hostile-token::',
  '::endgroup::hostile-endgroup',
]

/**
 * The commands seen that came from hostile text: their data starts with the `hostile` mark (our
 * own annotations may quote such text, after words of ours), or their properties hold it.
 */
export function hostileCommands(output: string): SeenCommand[] {
  return runnerCommands(output).filter(
    (c) => /^hostile/i.test(c.data) || /hostile|INJECTED/i.test(c.properties),
  )
}
