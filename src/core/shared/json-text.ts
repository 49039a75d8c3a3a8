/**
 * JSON from a user's file. A UTF-8 byte order mark is accepted (Windows editors write one). A
 * syntax error is told by line and column and the one character found there: never by the
 * excerpt JSON.parse quotes, since the file may be anything (`/etc/passwd`, a key file).
 */
import type { Problem } from './problem.js'
export function parseJsonText(text: string): { value: unknown } | Problem {
  const json = text.startsWith('\uFEFF') ? text.slice(1) : text
  try {
    return { value: JSON.parse(json) as unknown }
  } catch {
    const error = jsonSyntaxError(json)
    const problem = error.tooDeep
      ? `nested more than ${MAX_DEPTH} levels deep ${where(json, error.offset)}`
      : describeOffset(json, error.offset)
    return { problem: `not valid JSON: ${problem}` }
  }
}

/**
 * JSON that a tool or a registry wrote, where a failure needs no position: its value, or
 * undefined when it is not JSON (no JSON text parses to undefined).
 */
export function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** A JSON object, its members readable by name (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function where(text: string, offset: number): string {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  if (offset >= text.length) return `after line ${line}`
  return `at line ${line}, column ${offset - before.lastIndexOf('\n')}`
}

function describeOffset(text: string, offset: number): string {
  const char = text.codePointAt(offset)
  if (char === undefined) return `it ends too early (${where(text, offset)})`
  const found =
    char > 0x20 && char < 0x7f
      ? `'${String.fromCodePoint(char)}'`
      : `character U+${char.toString(16).toUpperCase().padStart(4, '0')}`
  return `unexpected ${found} ${where(text, offset)}`
}

class SyntaxAt extends Error {
  constructor(
    readonly offset: number,
    readonly tooDeep = false,
  ) {
    super(`JSON syntax error at ${offset}`)
  }
}

const MAX_DEPTH = 512
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const WHITESPACE = /[ \t\n\r]*/y
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y

/**
 * Where the first syntax error of `text` is (RFC 8259), for a text JSON.parse refused: its own
 * message gives no position for most errors. Only ever run on that failure path.
 */
export function jsonSyntaxError(text: string): { offset: number; tooDeep: boolean } {
  let at = 0
  const fail = (): never => {
    throw new SyntaxAt(at)
  }
  const sticky = (pattern: RegExp): boolean => {
    pattern.lastIndex = at
    if (!pattern.test(text)) return false
    at = pattern.lastIndex
    return true
  }
  const skip = (): void => void sticky(WHITESPACE)
  const literal = (word: string): void => {
    if (!text.startsWith(word, at)) fail()
    at += word.length
  }
  const string = (): void => {
    at++
    for (;;) {
      const code = text.charCodeAt(at)
      if (Number.isNaN(code) || code < 0x20) fail()
      if (code === 0x22) break
      if (code !== 0x5c) at++
      else if (!sticky(ESCAPE)) fail()
    }
    at++
  }
  const members = (close: string, member: () => void): void => {
    at++
    skip()
    if (text[at] === close) {
      at++
      return
    }
    for (;;) {
      member()
      skip()
      if (text[at] !== ',') break
      at++
      skip()
    }
    literal(close)
  }
  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) throw new SyntaxAt(at, true)
    skip()
    const char = text[at]
    if (char === '{')
      members('}', () => {
        if (text[at] !== '"') fail()
        string()
        skip()
        literal(':')
        value(depth + 1)
      })
    else if (char === '[') members(']', () => value(depth + 1))
    else if (char === '"') string()
    else if (char === 't') literal('true')
    else if (char === 'f') literal('false')
    else if (char === 'n') literal('null')
    else if (!sticky(NUMBER)) fail()
  }
  try {
    value(0)
    skip()
    return { offset: at, tooDeep: false }
  } catch (error) {
    if (error instanceof SyntaxAt) return { offset: error.offset, tooDeep: error.tooDeep }
    throw error
  }
}
