/**
 * BuildKit's word expansion (frontend/dockerfile/shell/lex.go), which reads the words of
 * `COPY`, `ADD`, `ARG`, `ENV` and finds heredoc names: quotes, the escape token, `$NAME`,
 * `${NAME}`, and `${NAME:-word}`, `${NAME-word}`, `${NAME:+word}`, `${NAME+word}`. The other
 * forms (`${NAME:?word}`, `${NAME#pattern}`, `${NAME%pattern}`, `${NAME/from/to}`) are kept as
 * text where BuildKit keeps them (a variable left unset on purpose) and are otherwise not
 * understood: the reader then says so, and the image is built.
 */

/** What BuildKit would refuse: the build fails there. */
export class ShellSyntaxError extends Error {
  override readonly name = 'ShellSyntaxError'
}

/** A form this port does not evaluate. */
export class ShellNotUnderstood extends Error {
  override readonly name = 'ShellNotUnderstood'
}

export interface LexOptions {
  /** Quotes kept in the result. */
  rawQuotes?: boolean
  /** Escape tokens kept in the result. */
  rawEscapes?: boolean
  /** An unset variable kept as written. */
  skipUnsetEnv?: boolean
}

/** Go's unicode.IsSpace: JavaScript's `\s` differs (it has U+FEFF and lacks U+0085). */
export const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/
const GO_TRIM = new RegExp(`^${GO_SPACE.source}+|${GO_SPACE.source}+$`, 'g')

/** Go's strings.TrimSpace: the spaces of unicode.IsSpace off both ends. */
export const goTrim = (text: string): string => text.replace(GO_TRIM, '')

const LETTER = /\p{L}/u
const DIGIT = /\p{Nd}/u
const SPECIAL_PARAMETERS = new Set(['@', '*', '#', '?', '-', '$', '!', '0'])

/** The variables a word expands with (a Map will do). */
export interface Env {
  get(name: string): string | undefined
}

/** The word with its variables expanded and its quotes and escapes processed. */
export function processWord(
  word: string,
  env: Env,
  escape: string,
  options: LexOptions = {},
): string {
  return new ShellWord(word, env, escape, options).process().word
}

/** The words of a text, split on spaces after expansion, as BuildKit splits them. */
export function processWords(
  text: string,
  env: Env,
  escape: string,
  options: LexOptions = {},
): string[] {
  return new ShellWord(text, env, escape, options).process().words
}

class Words {
  word = ''
  words: string[] = []
  inWord = false

  addChar(ch: string): void {
    if (GO_SPACE.test(ch)) {
      if (this.inWord && this.word.length > 0) {
        this.words.push(this.word)
        this.word = ''
        this.inWord = false
      }
    } else this.addRawChar(ch)
  }

  addRawChar(ch: string): void {
    this.word += ch
    this.inWord = true
  }

  addString(text: string): void {
    for (const ch of text) this.addChar(ch)
  }

  addRawString(text: string): void {
    this.word += text
    this.inWord = true
  }

  getWords(): string[] {
    if (this.word.length > 0) {
      this.words.push(this.word)
      this.word = ''
      this.inWord = false
    }
    return this.words
  }
}

class ShellWord {
  private readonly chars: string[]
  private position = 0
  private rawEscapes: boolean

  constructor(
    text: string,
    private readonly env: Env,
    private readonly escape: string,
    private readonly options: LexOptions,
  ) {
    // Go's text/scanner reads runes; a NUL or a byte-order mark it treats apart.
    if (/[\0\ufeff]/.test(text)) throw new ShellNotUnderstood('a NUL or U+FEFF character')
    // Code points, as Go's scanner reads runes.
    this.chars = Array.from(text)
    this.rawEscapes = options.rawEscapes ?? false
  }

  private peek(): string | undefined {
    return this.chars[this.position]
  }

  private next(): string | undefined {
    return this.chars[this.position++]
  }

  process(): { word: string; words: string[] } {
    return this.processStopOn(undefined, this.rawEscapes)
  }

  private processStopOn(
    stop: string | undefined,
    rawEscapes: boolean,
  ): { word: string; words: string[] } {
    const saved = this.rawEscapes
    this.rawEscapes = rawEscapes
    try {
      return this.scanUntil(stop)
    } finally {
      this.rawEscapes = saved
    }
  }

  private scanUntil(stop: string | undefined): { word: string; words: string[] } {
    let result = ''
    const words = new Words()
    for (let ch = this.peek(); ch !== undefined; ch = this.peek()) {
      if (stop !== undefined && ch === stop) {
        this.next()
        return { word: result, words: words.getWords() }
      }
      if (ch === '$' || ch === "'" || ch === '"') {
        const text =
          ch === '$'
            ? this.processDollar()
            : ch === "'"
              ? this.processSingleQuote()
              : this.processDoubleQuote()
        result += text
        if (ch === '$') words.addString(text)
        else words.addRawString(text)
        continue
      }
      let taken = this.next() as string
      if (taken === this.escape) {
        if (this.rawEscapes) {
          words.addRawChar(taken)
          result += taken
        }
        const escaped = this.next()
        if (escaped === undefined) break
        taken = escaped
        words.addRawChar(taken)
      } else words.addChar(taken)
      result += taken
    }
    if (stop !== undefined) throw unmatched(stop)
    return { word: result, words: words.getWords() }
  }

  /** Reads a quoted word's opening quote: kept in the word with `rawQuotes`. */
  private openQuote(): string {
    const quote = this.next() as string
    return this.options.rawQuotes ? quote : ''
  }

  /** The quoted text once its closing quote is read: the quote kept with `rawQuotes`. */
  private closeQuote(text: string, quote: string): string {
    return this.options.rawQuotes ? text + quote : text
  }

  private processSingleQuote(): string {
    let result = this.openQuote()
    for (;;) {
      const ch = this.next()
      if (ch === undefined) throw unmatched('single-quote')
      if (ch === "'") return this.closeQuote(result, ch)
      result += ch
    }
  }

  private processDoubleQuote(): string {
    let result = this.openQuote()
    for (;;) {
      const ch = this.peek()
      if (ch === undefined) throw unmatched('double-quote')
      if (ch === '"') {
        this.next()
        return this.closeQuote(result, ch)
      }
      if (ch === '$') {
        result += this.processDollar()
        continue
      }
      let taken = this.next() as string
      if (taken === this.escape) {
        if (this.rawEscapes) result += taken
        const after = this.peek()
        if (after === undefined) continue
        if (after === '"' || after === '$' || after === this.escape) taken = this.next() as string
      }
      result += taken
    }
  }

  private lookup(name: string): string | undefined {
    return this.env.get(name)
  }

  private processDollar(): string {
    this.next()
    if (this.peek() !== '{') {
      const name = this.processName()
      if (name === '') return '$'
      const value = this.lookup(name)
      if (value === undefined && this.options.skipUnsetEnv) return `$${name}`
      return value ?? ''
    }
    this.next()
    const first = this.peek()
    if (first === undefined) throw new ShellSyntaxError("syntax error: missing '}'")
    if (first === '{' || first === '}' || first === ':')
      throw new ShellSyntaxError('syntax error: bad substitution')
    const name = this.processName()
    let ch = this.next()
    let modifier = ch ?? ''
    const value = this.lookup(name)
    const unsetKept = value === undefined && this.options.skipUnsetEnv
    if (ch === '}') return unsetKept ? `\${${name}}` : (value ?? '')
    let nullIsUnset = false
    if (ch === ':') {
      nullIsUnset = true
      ch = this.next()
      modifier += ch ?? '\ufffd'
    }
    if (nullIsUnset || (ch !== undefined && '+-?#%'.includes(ch))) {
      const word = this.stopOnBrace(ch === '#' || ch === '%')
      if (unsetKept) return `\${${name}${modifier}${word}}`
      const unset = value === undefined || (nullIsUnset && value === '')
      if (ch === '-') return unset ? word : value
      if (ch === '+') return unset ? '' : word
      if (ch === '?' || ch === '#' || ch === '%')
        throw new ShellNotUnderstood(`'\${${name}${modifier}…}'`)
      throw new ShellSyntaxError(`unsupported modifier (${modifier}) in substitution`)
    }
    if (ch === '/') {
      if (this.peek() === '/') this.next()
      const pattern = this.stopOn('/', "syntax error: missing '/' in ${}")
      const replacement = this.stopOn('}', "syntax error: missing '}'")
      if (unsetKept) return `\${${name}/${pattern}/${replacement}}`
      throw new ShellNotUnderstood(`'\${${name}/…}'`)
    }
    throw new ShellSyntaxError(`unsupported modifier (${modifier || '\ufffd'}) in substitution`)
  }

  private stopOnBrace(rawEscapes: boolean): string {
    return this.stopOn('}', "syntax error: missing '}'", rawEscapes)
  }

  private stopOn(stop: string, missing: string, rawEscapes = true): string {
    try {
      return this.processStopOn(stop, rawEscapes).word
    } catch (error) {
      if (error instanceof ShellSyntaxError && this.peek() === undefined)
        throw new ShellSyntaxError(missing)
      throw error
    }
  }

  private processName(): string {
    let name = ''
    for (let ch = this.peek(); ch !== undefined; ch = this.peek()) {
      if (name === '' && DIGIT.test(ch)) {
        for (let digit = this.peek(); digit !== undefined && DIGIT.test(digit); digit = this.peek())
          name += this.next() as string
        return name
      }
      if (name === '' && SPECIAL_PARAMETERS.has(ch)) return this.next() as string
      if (!LETTER.test(ch) && !DIGIT.test(ch) && ch !== '_') break
      name += this.next() as string
    }
    return name
  }
}

/** The statement ended inside a quote or a brace: BuildKit's words for it. */
function unmatched(what: string): ShellSyntaxError {
  return new ShellSyntaxError(`unexpected end of statement while looking for matching ${what}`)
}
