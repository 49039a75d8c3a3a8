/**
 * Splits a command line into argv the way a user expects from a shell, without a shell: words
 * split on whitespace, '…' and "…" group words, a backslash escapes the next character outside
 * single quotes. No expansion of any kind happens.
 */
import type { Problem } from '../shared/problem.js'
export function splitCommand(line: string): string[] | Problem {
  const words: string[] = []
  let word = ''
  let inWord = false
  let quote: "'" | '"' | undefined
  for (let index = 0; index < line.length; index++) {
    const char = line.charAt(index)
    if (quote) {
      if (char === quote) quote = undefined
      else if (char === '\\' && quote === '"' && index + 1 < line.length)
        word += line.charAt(++index)
      else word += char
    } else if (char === "'" || char === '"') {
      quote = char
      inWord = true
    } else if (char === '\\' && index + 1 < line.length) {
      word += line.charAt(++index)
      inWord = true
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += char
      inWord = true
    }
  }
  if (quote) return { problem: `has an unclosed ${quote} quote` }
  if (inWord) words.push(word)
  if (words.length === 0)
    return { problem: 'is empty: expected a command such as npx olympe snapshot' }
  return words
}

const NPX_CHOICE_FLAGS = new Set(['--yes', '-y', '--no', '--no-install'])

/**
 * The toolkit runs with a fresh clone as its working folder, where `npx olympe` would find no
 * project and, in CI, silently download whatever package is called `olympe`. Pointing npx at the
 * project (`--prefix`) and forbidding downloads (`--no`) runs the user's own toolkit or fails.
 */
export function toolkitArgv(command: readonly string[], projectDir: string): string[] {
  const [program = '', ...rest] = command
  if (!/(^|[/\\])npx(\.cmd)?$/.test(program)) return [...command]
  const options: string[] = []
  if (!rest.some((arg) => arg === '--prefix' || arg.startsWith('--prefix=')))
    options.push('--prefix', projectDir)
  if (!rest.some((arg) => NPX_CHOICE_FLAGS.has(arg))) options.push('--no')
  return [program, ...options, ...rest]
}
