import { posix } from 'node:path'
import { goTrim } from './shell-words.js'

/**
 * `.dockerignore` as BuildKit applies it to the build context: moby/patternmatcher's
 * ignorefile.ReadAll (comments, `!` exceptions, a leading `/` dropped, spaces trimmed, paths
 * cleaned) and PatternMatcher.MatchesUsingParentResults (`*`, `?`, `**`, the last matching
 * pattern deciding, a folder's match passed down to what it holds), which fsutil's walker calls
 * for every path it sends. A file it leaves out cannot reach the image, so the fingerprint leaves
 * it out too. No npm package matches this exactly (@balena/dockerignore follows node-ignore's
 * rules), so this follows moby's code, and is tested against BuildKit itself. Patterns with
 * character classes or escapes (`[a-z]`, `\*`) are not read: the whole context then counts.
 */

/** The patterns of an ignore file, or why they are not applied. */
export type IgnoreRules = { matcher: IgnoreMatcher } | { invalid: string } | { notApplied: string }

/** Go's filepath.Clean on Unix. */
function clean(path: string): string {
  const normalized = posix.normalize(path)
  return normalized.length > 1 ? normalized.replace(/\/+$/, '') : normalized
}

/** ignorefile.ReadAll, then patternmatcher.New. */
export function readIgnoreFile(text: string): IgnoreRules {
  const patterns: string[] = []
  const lines = text.replace(/^\ufeff/, '').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '')
    if (line.startsWith('#')) continue
    let pattern = goTrim(line)
    if (pattern === '') continue
    const invert = pattern.startsWith('!')
    if (invert) pattern = goTrim(pattern.slice(1))
    if (pattern.length > 0) {
      pattern = clean(pattern)
      if (pattern.length > 1 && pattern.startsWith('/')) pattern = pattern.slice(1)
    }
    patterns.push(invert ? `!${pattern}` : pattern)
  }
  const compiled: Pattern[] = []
  for (const written of patterns) {
    let pattern = goTrim(written)
    if (pattern === '') continue
    pattern = clean(pattern)
    const exclusion = pattern.startsWith('!')
    if (exclusion) {
      if (pattern.length === 1) return { invalid: 'illegal exclusion pattern: "!"' }
      pattern = pattern.slice(1)
    }
    if (/[[\]\\]/.test(pattern))
      return {
        notApplied: `its pattern '${written}' has a character class or an escape, which this step does not match`,
      }
    compiled.push(new Pattern(pattern, exclusion))
  }
  return { matcher: new IgnoreMatcher(compiled) }
}

class Pattern {
  private readonly test: (path: string) => boolean

  constructor(
    readonly text: string,
    readonly exclusion: boolean,
  ) {
    this.test = compile(text)
  }

  match(path: string): boolean {
    return this.test(path)
  }
}

/** patternmatcher's compile: exact, prefix (`a/**`), suffix (`**\/a`), or a regular expression. */
function compile(pattern: string): (path: string) => boolean {
  let source = '^'
  let type: 'exact' | 'prefix' | 'suffix' | 'regexp' = 'exact'
  const chars = Array.from(pattern)
  for (let index = 0; index < chars.length; index++) {
    const ch = chars[index] as string
    if (ch === '*') {
      if (chars[index + 1] === '*') {
        const first = index === 0
        index++
        if (chars[index + 1] === '/') index++
        if (index + 1 >= chars.length) {
          if (type === 'exact') type = 'prefix'
          else {
            source += '[^\\n]*'
            type = 'regexp'
          }
        } else {
          source += '([^\\n]*/)?'
          type = 'regexp'
        }
        if (first) type = 'suffix'
      } else {
        source += '[^/]*'
        type = 'regexp'
      }
    } else if (ch === '?') {
      source += '[^/]'
      type = 'regexp'
    } else if ('.+()|{}$'.includes(ch)) {
      source += `\\${ch}`
    } else source += ch
  }
  switch (type) {
    case 'exact':
      return (path) => path === pattern
    case 'prefix':
      return (path) => path.startsWith(pattern.slice(0, -2))
    case 'suffix': {
      const suffix = pattern.slice(2)
      return (path) => path.endsWith(suffix) || (suffix.startsWith('/') && path === suffix.slice(1))
    }
    case 'regexp': {
      const regexp = new RegExp(`${source}$`, 'u')
      return (path) => regexp.test(path)
    }
  }
}

/** Which patterns matched a folder: what its entries inherit. */
export type MatchInfo = readonly boolean[]

export class IgnoreMatcher {
  constructor(private readonly patterns: readonly Pattern[]) {}

  /** MatchesUsingParentResults: whether `path` (context-relative, '/'-separated) is left out. */
  matches(path: string, parent: MatchInfo = []): { ignored: boolean; info: MatchInfo } {
    let ignored = false
    const info: boolean[] = []
    this.patterns.forEach((pattern, index) => {
      let match = parent[index] ?? false
      if (!match) {
        if (pattern.exclusion !== ignored) {
          info.push(false)
          return
        }
        match = pattern.match(path)
        if (!match && parent.length === 0) {
          const dir = posix.dirname(path)
          if (dir !== '.') {
            const parts = dir.split('/')
            for (let end = 1; end <= parts.length && !match; end++)
              match = pattern.match(parts.slice(0, end).join('/'))
          }
        }
      }
      info.push(match)
      if (match) ignored = !pattern.exclusion
    })
    return { ignored, info }
  }

  /**
   * `path` matched as the walker matches it, its folders first: whether it is left out, and
   * what the entries below it inherit.
   */
  walk(path: string): { ignored: boolean; info: MatchInfo } {
    let found: { ignored: boolean; info: MatchInfo } = { ignored: false, info: [] }
    const parts = path.split('/')
    for (let end = 1; end <= parts.length; end++)
      found = this.matches(parts.slice(0, end).join('/'), found.info)
    return found
  }

  /**
   * Whether a `!` pattern brings anything back: BuildKit's walker then goes on into a folder that
   * is left out, since a path below it may be let through again.
   */
  hasExclusions(): boolean {
    return this.patterns.some((pattern) => pattern.exclusion)
  }

  /** Whether a path is left out, its folders matched first as the walker matches them. */
  ignores(path: string): boolean {
    return this.walk(path).ignored
  }
}
