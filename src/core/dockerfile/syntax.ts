import { jsonValue } from '../shared/json-text.js'
import {
  GO_SPACE,
  goTrim,
  processWords,
  ShellNotUnderstood,
  ShellSyntaxError,
} from './shell-words.js'

/**
 * A Dockerfile split into instructions exactly as BuildKit's parser splits it
 * (frontend/dockerfile/parser: parser.go, directives.go, split_command.go, line_parsers.go):
 * parser directives (`escape`, `syntax`) only in the first lines, line continuations with the
 * escape token, comment and empty lines inside them, here-documents only in `RUN`, `COPY` and
 * `ADD` (and `ONBUILD` of those), only for words that start with `<<` (after an optional file
 * descriptor), ending at their own name. The reuse fingerprint depends on it: a line read
 * differently from BuildKit hides a `COPY` from it. No npm Dockerfile parser reads these cases
 * as BuildKit does (dockerfile-ast, the language server's, applies an `escape` directive that
 * follows an unknown one, joins a line ending in an escaped escape token, and ends `<<E"O"F` at
 * `E"O"F`), so this follows BuildKit's code, and is tested against BuildKit itself.
 */

export type Escape = '\\' | '`'

export interface Heredoc {
  name: string
  content: string
  expand: boolean
  chomp: boolean
}

export interface Instruction {
  /** Upper case: `COPY`, `FROM`. */
  keyword: string
  /** The line, its continuations joined, as BuildKit keeps it (for messages). */
  original: string
  /** `--name=value` builder flags, as BuildKit extracts them. */
  flags: string[]
  /** The arguments as BuildKit's line parser for this keyword gives them. */
  args: string[]
  /** ENV's names and values, before expansion. */
  pairs?: Array<[string, string]>
  /** The JSON array form. */
  json: boolean
  heredocs: Heredoc[]
  /** ONBUILD's instruction. */
  trigger?: Instruction
  /** 1-based. */
  line: number
}

export interface DockerfileSyntax {
  escape: Escape
  /** The frontend a `syntax` directive names (BuildKit then runs that image instead). */
  syntax?: string
  instructions: Instruction[]
}

/** What BuildKit would refuse, or what this reader does not follow: either way, no reuse. */
export class DockerfileProblem extends Error {
  override readonly name = 'DockerfileProblem'
  constructor(
    message: string,
    /** true: BuildKit itself would fail; false: this reader cannot tell. */
    readonly invalid: boolean,
  ) {
    super(message)
  }
}

/** Go's `\s` is `[\t\n\f\r ]`, and its `.` any character but `\n`. */
const GO_S = '[\\t\\n\\f\\r ]'
const directivePattern = (comment: string): RegExp =>
  new RegExp(`^${comment}${GO_S}*([a-zA-Z][a-zA-Z0-9]*)${GO_S}*=${GO_S}*([^\\n]+?)${GO_S}*$`)
const DIRECTIVE = directivePattern('#')
const KNOWN_DIRECTIVES = new Set(['syntax', 'escape'])
/**
 * Directives newer BuildKit versions know (and so keep reading directives after): an `escape`
 * after one of them is read differently by different versions.
 */
const NEWER_DIRECTIVES = new Set(['check'])
const HEREDOC_WORD = /^(\d*)<<(-?)([^<]*)$/
const HEREDOC_KEYWORDS = new Set(['ADD', 'COPY', 'RUN'])
/** Go's bufio.Scanner default limit: BuildKit refuses longer lines. */
const MAX_LINE_BYTES = 64 * 1024 - 1
const LEADING_SPACE = new RegExp(`^${GO_SPACE.source}+`)
const WHITESPACE = /[\t\v\f\r ]+/

const trimNewline = (line: string): string => line.replace(/[\r\n]+$/, '')
const isComment = (line: string): boolean =>
  trimNewline(line).replace(LEADING_SPACE, '').startsWith('#')

/** The Dockerfile read as BuildKit reads it; a DockerfileProblem when it cannot be. */
export function parseDockerfile(text: string): DockerfileSyntax {
  if (text.includes('\ufffd')) throw new DockerfileProblem('it is not valid UTF-8 text', false)
  const lines = scanLines(text.replace(/^\ufeff/, ''))
  const directives = new Directives()
  const instructions: Instruction[] = []
  let index = 0
  const processLine = (line: string, stripLeft: boolean): string => {
    let token = trimNewline(line)
    if (stripLeft) token = token.replace(LEADING_SPACE, '')
    directives.parseLine(token)
    return token.startsWith('#') ? '' : token
  }
  while (index < lines.length) {
    const first = lines[index++] as string
    const startLine = index
    let [line, ended] = directives.trimContinuation(processLine(first, true))
    if (ended && line === '') continue
    while (!ended && index < lines.length) {
      const raw = lines[index++] as string
      const processed = processLine(raw, false)
      if (isComment(raw)) continue
      if (processed.replace(LEADING_SPACE, '') === '') continue
      let more: string
      ;[more, ended] = directives.trimContinuation(processed)
      line += more
    }
    const instruction = newInstruction(line, directives.escape, startLine)
    if (canContainHeredoc(instruction)) {
      for (const heredoc of heredocsFromLine(line)) {
        let terminated = false
        while (index < lines.length) {
          const raw = lines[index++] as string
          let candidate = trimNewline(raw)
          if (heredoc.chomp) candidate = candidate.replace(/^\t+/, '')
          if (candidate === heredoc.name) {
            terminated = true
            break
          }
          heredoc.content += raw
        }
        if (!terminated) throw new DockerfileProblem('unterminated heredoc', true)
        instruction.heredocs.push(heredoc)
      }
    }
    instructions.push(instruction)
  }
  if (instructions.length === 0) throw new DockerfileProblem('file with no instructions', true)
  if (directives.escapeAfterNewer)
    throw new DockerfileProblem(
      `its 'escape' directive follows a '${directives.escapeAfterNewer}' directive, which BuildKit versions read differently`,
      false,
    )
  return { escape: directives.escape, syntax: detectSyntax(text), instructions }
}

/** Lines with their line endings, as Go's scanLines gives them. */
function scanLines(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? []
  for (const line of lines)
    if (Buffer.byteLength(line) > MAX_LINE_BYTES)
      throw new DockerfileProblem('a line is longer than BuildKit reads', true)
  return lines
}

/** The escape token, as the directives at the top of the file set it. */
class Directives {
  escape: Escape = '\\'
  /** A newer directive that an `escape` directive follows (see NEWER_DIRECTIVES). */
  escapeAfterNewer?: string
  private done = false
  /** Reading on as a newer BuildKit would, after the newer directive named here. */
  private newer?: string
  private readonly seen = new Set<string>()
  private continuation = continuationPattern('\\')

  parseLine(line: string): void {
    const match = DIRECTIVE.exec(line)
    const name = match?.[1]?.toLowerCase() ?? ''
    if (this.newer) {
      if (!match || !(KNOWN_DIRECTIVES.has(name) || NEWER_DIRECTIVES.has(name)))
        this.newer = undefined
      else if (name === 'escape') this.escapeAfterNewer = this.newer
    }
    if (this.done) return
    if (!match || !KNOWN_DIRECTIVES.has(name)) {
      this.done = true
      if (match && NEWER_DIRECTIVES.has(name)) this.newer = name
      return
    }
    if (this.seen.has(name))
      throw new DockerfileProblem(`only one ${name} parser directive can be used`, true)
    this.seen.add(name)
    if (name !== 'escape') return
    const value = match[2] ?? ''
    if (value !== '`' && value !== '\\')
      throw new DockerfileProblem(`invalid escape token '${value}' does not match \` or \\`, true)
    this.escape = value
    this.continuation = continuationPattern(value)
  }

  trimContinuation(line: string): [string, boolean] {
    if (!this.continuation.test(line)) return [line, true]
    return [line.replace(this.continuation, '$1'), false]
  }
}

function continuationPattern(escape: string): RegExp {
  const e = `\\${escape}`
  return new RegExp(`([^${e}])${e}[ \\t]*$|^${e}[ \\t]*$`)
}

function newInstruction(line: string, escape: Escape, number: number): Instruction {
  const trimmed = goTrim(line)
  const cut = WHITESPACE.exec(trimmed)
  const command = cut ? trimmed.slice(0, cut.index) : trimmed
  const rest = cut ? trimmed.slice(cut.index + cut[0].length) : ''
  const [argsText, flags] = rest === '' ? ['', []] : extractBuilderFlags(rest)
  if (!/^[A-Za-z]+$/.test(command))
    throw new DockerfileProblem(`unknown instruction: ${command}`, true)
  // BuildKit reads flags byte by byte: a character beyond ASCII there it reads apart.
  if (flags.some((flag) => /[^ -~\t]/.test(flag)))
    throw new DockerfileProblem(`a flag of '${trimmed}' holds characters beyond ASCII`, false)
  const keyword = command.toUpperCase()
  const instruction: Instruction = {
    keyword,
    original: line,
    flags,
    args: [],
    json: false,
    heredocs: [],
    line: number,
  }
  const read = ARGUMENT_READERS.get(keyword)
  if (!read) throw new DockerfileProblem(`unknown instruction: ${command}`, true)
  return Object.assign(instruction, read(goTrim(argsText), escape, number))
}

/** How one instruction reads its arguments (the text after its flags). */
type ArgumentReader = (args: string, escape: Escape, number: number) => Partial<Instruction>

const spaceSeparated: ArgumentReader = (args) => ({
  args: args === '' ? [] : args.split(WHITESPACE),
})
const oneString: ArgumentReader = (args) => ({ args: args === '' ? [] : [args] })

/** BuildKit's dispatch table (parser.go): the instructions it knows, each with its reader. */
const ARGUMENT_READERS = new Map<string, ArgumentReader>([
  ['ADD', maybeJsonToList],
  ['ARG', (args, escape) => ({ args: parseWords(args, escape) })],
  ['CMD', maybeJson],
  ['COPY', maybeJsonToList],
  ['ENTRYPOINT', maybeJson],
  ['ENV', (args, escape) => ({ pairs: parseNameVal(args, 'ENV', escape) })],
  ['EXPOSE', spaceSeparated],
  ['FROM', spaceSeparated],
  ['HEALTHCHECK', oneString],
  // Read only for the errors BuildKit gives: nothing here needs its pairs.
  ['LABEL', (args, escape) => (parseNameVal(args, 'LABEL', escape), {})],
  ['MAINTAINER', oneString],
  [
    'ONBUILD',
    (args, escape, number) =>
      args === '' ? {} : { trigger: newInstruction(args, escape, number) },
  ],
  ['RUN', maybeJson],
  ['SHELL', maybeJson],
  ['STOPSIGNAL', oneString],
  ['USER', oneString],
  ['VOLUME', maybeJsonToList],
  ['WORKDIR', oneString],
])

function canContainHeredoc(instruction: Instruction): boolean {
  const target =
    instruction.keyword === 'ONBUILD' && instruction.trigger ? instruction.trigger : instruction
  return HEREDOC_KEYWORDS.has(target.keyword) && !target.json
}

/** BuildKit's ParseHeredoc: a word `[fd]<<[-]name`; undefined when it is none. */
export function parseHeredoc(word: string): Heredoc | undefined {
  const match = HEREDOC_WORD.exec(word)
  if (!match) return undefined
  const chomp = match[2] === '-'
  const rest = match[3] ?? ''
  if (rest === '') return undefined
  const lex = (rawQuotes: boolean): string[] =>
    processWords(rest, new Map(), '\\', { skipUnsetEnv: true, rawQuotes })
  const words = rethrow(() => lex(false))
  if (words.length !== 1) return undefined
  const raw = rethrow(() => lex(true))
  if (raw.length !== words.length)
    throw new DockerfileProblem(
      `internal lexing of heredoc produced inconsistent results: ${rest}`,
      true,
    )
  const name = words[0] as string
  const quotes = (text: string): number => (text.match(/['"]/g) ?? []).length
  return { name, content: '', expand: quotes(name) === quotes(raw[0] as string), chomp }
}

function heredocsFromLine(line: string): Heredoc[] {
  let words: string[]
  try {
    words = processWords(line, new Map(), '\\', {
      rawQuotes: true,
      rawEscapes: true,
      skipUnsetEnv: true,
    })
  } catch (error) {
    // BuildKit ignores this error: the line then has no heredoc.
    if (error instanceof ShellSyntaxError) words = []
    else throw notUnderstood(error)
  }
  return words.flatMap((word) => parseHeredoc(word) ?? [])
}

function rethrow<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (error instanceof ShellSyntaxError) throw new DockerfileProblem(error.message, true)
    throw notUnderstood(error)
  }
}

function notUnderstood(error: unknown): unknown {
  return error instanceof ShellNotUnderstood
    ? new DockerfileProblem(`it uses ${error.message}, which this reader does not follow`, false)
    : error
}

/** split_command.go extractBuilderFlags: the leading `--flag` words, then the rest of the line. */
function extractBuilderFlags(line: string): [string, string[]] {
  return splitWords(line, { escape: '\\', keepQuoting: false, leadingFlagsOnly: true })
}

/** line_parsers.go parseWords: words split on spaces, quotes kept for later expansion. */
function parseWords(rest: string, escape: Escape): string[] {
  return splitWords(rest, { escape, keepQuoting: true, leadingFlagsOnly: false })[1]
}

/**
 * Where BuildKit's two word splitters, the same state machine written twice, differ. Here it is
 * written once, and each difference is a rule.
 */
interface WordRules {
  /** Always a backslash in the flags; the file's escape directive in the arguments. */
  escape: string
  /**
   * parseWords keeps quotes and escapes in the word, for the expansion that follows, and takes an
   * escape inside single quotes as it is; extractBuilderFlags drops them and honours every escape.
   */
  keepQuoting: boolean
  /** extractBuilderFlags stops before the first word that is no `--` flag, and after a lone `--`. */
  leadingFlagsOnly: boolean
}

/** The words of `text` split on spaces, and what the rules left of it unread. */
function splitWords(text: string, rules: WordRules): [string, string[]] {
  const chars = Array.from(text)
  const words: string[] = []
  let phase: 'spaces' | 'word' | 'quote' = 'spaces'
  let word = ''
  let quote = ''
  let blankOK = false
  const unread = (pos: number): [string, string[]] => [chars.slice(pos).join(''), words]
  const endWord = (): void => {
    if (blankOK || word.length > 0) words.push(word)
    word = ''
    blankOK = false
  }
  for (let pos = 0; pos <= chars.length; pos++) {
    const ch = chars[pos] ?? ''
    if (phase === 'spaces') {
      if (pos === chars.length) break
      if (GO_SPACE.test(ch)) continue
      if (rules.leadingFlagsOnly && !(ch === '-' && chars[pos + 1] === '-')) return unread(pos)
      phase = 'word'
    }
    if (pos === chars.length) {
      if (!(rules.leadingFlagsOnly && word === '--')) endWord()
      break
    }
    if (phase === 'word' && GO_SPACE.test(ch)) {
      if (rules.leadingFlagsOnly && word === '--') return unread(pos)
      endWord()
      phase = 'spaces'
      continue
    }
    const kept = rules.keepQuoting ? ch : ''
    if (phase === 'word' && (ch === "'" || ch === '"')) {
      quote = ch
      blankOK = true
      phase = 'quote'
      word += kept
      continue
    }
    if (phase === 'quote' && ch === quote) {
      phase = 'word'
      word += kept
      continue
    }
    const literalInQuote = phase === 'quote' && quote === "'" && rules.keepQuoting
    if (ch === rules.escape && !literalInQuote) {
      // An escape that ends the text is dropped, and ends a quote it stands in.
      if (pos + 1 === chars.length) phase = 'word'
      else word += kept + (chars[++pos] as string)
      continue
    }
    word += ch
  }
  return ['', words]
}

/** ENV and LABEL: `name=value …` words, or the old `name value` form. */
function parseNameVal(rest: string, keyword: string, escape: Escape): Array<[string, string]> {
  const words = parseWords(rest, escape)
  if (words.length === 0) return []
  if (!(words[0] as string).includes('=')) {
    const cut = WHITESPACE.exec(rest)
    if (!cut) throw new DockerfileProblem(`${keyword} must have two arguments`, true)
    return [[rest.slice(0, cut.index), rest.slice(cut.index + cut[0].length)]]
  }
  return words.map((word) => {
    const at = word.indexOf('=')
    if (at < 0) throw new DockerfileProblem(`Syntax error - can't find = in "${word}"`, true)
    return [word.slice(0, at), word.slice(at + 1)]
  })
}

function maybeJson(rest: string): Pick<Instruction, 'args' | 'json'> {
  if (rest === '') return { args: [], json: false }
  return json(rest) ?? { args: [rest], json: false }
}

function maybeJsonToList(rest: string): Pick<Instruction, 'args' | 'json'> {
  const parsed = json(rest)
  if (parsed) return parsed
  return { args: rest === '' ? [] : rest.split(WHITESPACE), json: false }
}

/**
 * BuildKit's parseJSON: Go's decoder reads the first JSON value and leaves what follows, so
 * `RUN ["a"] && b` is the JSON form. Undefined when that first value is no JSON array.
 */
function json(rest: string): Pick<Instruction, 'args' | 'json'> | undefined {
  const text = rest.replace(LEADING_SPACE, '')
  if (!text.startsWith('[')) return undefined
  const end = firstValueEnd(text)
  if (end === undefined) return undefined
  const parsed = jsonValue(text.slice(0, end))
  if (!Array.isArray(parsed)) return undefined
  if (!parsed.every((item) => typeof item === 'string'))
    throw new DockerfileProblem(
      'when using JSON array syntax, arrays must be comprised of strings only',
      true,
    )
  return { args: parsed, json: true }
}

/** Where the bracketed value that starts the text ends (strings skipped), if it does. */
function firstValueEnd(text: string): number | undefined {
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const ch = text[index]
    if (inString) {
      if (ch === '\\') index++
      else if (ch === '"') inString = false
    } else if (ch === '"') inString = true
    else if (ch === '[' || ch === '{') depth++
    else if (ch === ']' || ch === '}') {
      depth--
      if (depth === 0) return index + 1
    }
  }
  return undefined
}

/**
 * directives.go DetectSyntax: the frontend that runs instead of the built-in one, named by a
 * `syntax` directive on the first lines (after an optional `#!` line). Its `//` and JSON forms
 * are not Dockerfile lines at all: the parse refuses such a file anyway.
 */
function detectSyntax(text: string): string | undefined {
  let body = text
  if (body.startsWith('#!')) body = body.includes('\n') ? body.slice(body.indexOf('\n') + 1) : ''
  for (const pattern of [DIRECTIVE, directivePattern('//')]) {
    const seen = new Set<string>()
    for (const line of body.split('\n')) {
      const match = pattern.exec(line.replace(/\r$/, ''))
      const name = match?.[1]?.toLowerCase() ?? ''
      if (!match || !KNOWN_DIRECTIVES.has(name) || seen.has(name)) break
      seen.add(name)
      if (name === 'syntax') return (match[2] ?? '').split(' ')[0]
    }
  }
  return undefined
}
