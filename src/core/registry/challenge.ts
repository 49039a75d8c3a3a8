/** One challenge of a `WWW-Authenticate` header: `Bearer realm="…",service="…",scope="…"`. */
export interface Challenge {
  /** Lowercase: `basic`, `bearer`. */
  scheme: string
  /** Parameter names lowercase, values unquoted. */
  params: Record<string, string>
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y
const SPACE = /[ \t]*/y

/**
 * Parses a `WWW-Authenticate` value (RFC 9110 11.6.1): one or more challenges, each a scheme and
 * comma-separated `name=value` parameters whose values may be quoted strings holding commas,
 * `=` and escaped quotes. A value that cannot be parsed ends the parse: the challenges and
 * parameters before it stay.
 */
export function parseChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = []
  const scanner = new Scanner(header)
  for (;;) {
    scanner.skip(/[ \t,]*/y)
    const scheme = scanner.match(TOKEN)
    if (scheme === undefined) return challenges
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} }
    challenges.push(challenge)
    for (;;) {
      const read = readParam(scanner, challenge.params)
      if (read === 'broken') return challenges
      scanner.skip(SPACE)
      if (read === 'none' || !scanner.take(',')) break
    }
  }
}

/**
 * Reads `name=value` when one comes next ('read'), else leaves the scanner where it was
 * ('none': the next challenge's scheme, or the end). A value that is neither a token nor a
 * closed quoted string is 'broken'.
 */
function readParam(scanner: Scanner, params: Record<string, string>): 'read' | 'none' | 'broken' {
  const start = scanner.position
  scanner.skip(/[ \t,]*/y)
  const name = scanner.match(TOKEN)
  scanner.skip(SPACE)
  if (name === undefined || !scanner.take('=')) {
    scanner.position = start
    return 'none'
  }
  scanner.skip(SPACE)
  const value = scanner.peek() === '"' ? scanner.quoted() : scanner.match(TOKEN)
  // A value ends at a separator or the end: `realm=https://x` is no token, and no value.
  if (value === undefined || !/^[ \t,]?$/.test(scanner.peek() ?? '')) return 'broken'
  params[name.toLowerCase()] = value
  return 'read'
}

class Scanner {
  position = 0
  constructor(private readonly text: string) {}

  peek(): string | undefined {
    return this.text[this.position]
  }

  take(char: string): boolean {
    if (this.text[this.position] !== char) return false
    this.position++
    return true
  }

  skip(pattern: RegExp): void {
    this.match(pattern)
  }

  match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.position
    const found = pattern.exec(this.text)?.[0]
    if (!found) return undefined
    this.position += found.length
    return found
  }

  /** A quoted string from its opening quote; undefined when it never closes. */
  quoted(): string | undefined {
    let value = ''
    for (let i = this.position + 1; i < this.text.length; i++) {
      const char = this.text.charAt(i)
      if (char === '"') {
        this.position = i + 1
        return value
      }
      value += char === '\\' ? this.text.charAt(++i) : char
    }
    return undefined
  }
}
