// GitHub Actions expressions (`${{ … }}`), as much of them as the example workflows use, with
// GitHub's rules: `&&` and `||` give one of their operands, `==` compares strings without case,
// a missing property is null, and null, false, 0 and '' are falsy. An expression that goes
// beyond this (another function, an unknown context) throws: a test never guesses.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value }

export interface ExpressionScope {
  /** The contexts by name: github, inputs, secrets, vars, steps, needs, jobs, runner, matrix… */
  contexts: Record<string, Value>
  /** Where hashFiles() looks. */
  workspace: string
  /**
   * What success() and failure() say: of the job's steps so far in a step's `if`, of its needs in
   * a job's (`skipped` when a need was skipped: neither). Success when not given.
   */
  status?: 'success' | 'failure' | 'skipped'
}

const TOKEN =
  /\s*(?:('(?:[^']|'')*')|(-?\d+(?:\.\d+)?)\b|([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)|(==|!=|&&|\|\||[!(),]))/y

type Token = { kind: 'string' | 'number' | 'name' | 'op'; text: string }

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < source.length) {
    if (source.slice(TOKEN.lastIndex).trim() === '') break
    const at = TOKEN.lastIndex
    const match = TOKEN.exec(source)
    if (!match) throw new Error(`Unsupported expression at ${at}: '${source}'`)
    const [, string, number, name, op] = match
    if (string !== undefined) tokens.push({ kind: 'string', text: string })
    else if (number !== undefined) tokens.push({ kind: 'number', text: number })
    else if (name !== undefined) tokens.push({ kind: 'name', text: name })
    else tokens.push({ kind: 'op', text: op ?? '' })
  }
  return tokens
}

export function truthy(value: Value): boolean {
  return !(value === null || value === false || value === 0 || value === '' || Number.isNaN(value))
}

export function asText(value: Value): string {
  if (value === null) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

function equal(left: Value, right: Value): boolean {
  if (typeof left === 'string' && typeof right === 'string')
    return left.toLowerCase() === right.toLowerCase()
  if (typeof left === typeof right) return left === right
  const number = (value: Value): number =>
    value === null ? 0 : typeof value === 'object' ? NaN : Number(value)
  return number(left) === number(right)
}

class Parser {
  private index = 0
  constructor(
    private readonly tokens: Token[],
    private readonly scope: ExpressionScope,
    private readonly source: string,
  ) {}

  parse(): Value {
    const value = this.or()
    if (this.index !== this.tokens.length) throw new Error(`Unexpected token in '${this.source}'`)
    return value
  }

  private peek(text: string): boolean {
    const token = this.tokens[this.index]
    return token?.kind === 'op' && token.text === text
  }

  private expect(text: string): void {
    if (!this.peek(text)) throw new Error(`Expected '${text}' in '${this.source}'`)
    this.index++
  }

  private or(): Value {
    // `a || b` is a when a is truthy, else b.
    return this.chain(
      '||',
      () => this.and(),
      (left, right) => (truthy(left) ? left : right),
    )
  }

  private and(): Value {
    // `a && b` is b when a is truthy, else a.
    return this.chain(
      '&&',
      () => this.comparison(),
      (left, right) => (truthy(left) ? right : left),
    )
  }

  /** Operands read by `operand`, joined left to right by `op`, each pair as `join` takes it. */
  private chain(
    op: string,
    operand: () => Value,
    join: (left: Value, right: Value) => Value,
  ): Value {
    let value = operand()
    while (this.peek(op)) {
      this.index++
      value = join(value, operand())
    }
    return value
  }

  private comparison(): Value {
    const left = this.unary()
    for (const op of ['==', '!=']) {
      if (!this.peek(op)) continue
      this.index++
      const same = equal(left, this.unary())
      return op === '==' ? same : !same
    }
    return left
  }

  private unary(): Value {
    if (!this.peek('!')) return this.primary()
    this.index++
    return !truthy(this.unary())
  }

  private primary(): Value {
    const token = this.tokens[this.index++]
    if (!token) throw new Error(`Unexpected end of '${this.source}'`)
    if (token.kind === 'string') return token.text.slice(1, -1).replace(/''/g, "'")
    if (token.kind === 'number') return Number(token.text)
    if (token.kind === 'op') {
      if (token.text !== '(') throw new Error(`Unexpected '${token.text}' in '${this.source}'`)
      const value = this.or()
      this.expect(')')
      return value
    }
    if (this.peek('(')) return this.call(token.text)
    if (token.text === 'true' || token.text === 'false') return token.text === 'true'
    if (token.text === 'null') return null
    return this.lookup(token.text)
  }

  private call(name: string): Value {
    this.expect('(')
    const args: Value[] = []
    while (!this.peek(')')) {
      args.push(this.or())
      if (!this.peek(')')) this.expect(',')
    }
    this.expect(')')
    return callFunction(name, args, this.scope)
  }

  private lookup(path: string): Value {
    const [context = '', ...keys] = path.split('.')
    if (!Object.hasOwn(this.scope.contexts, context))
      throw new Error(`Unknown context '${context}' in '${this.source}'`)
    let value: Value = this.scope.contexts[context] ?? null
    for (const key of keys) {
      value =
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? (value[key] ?? null)
          : null
    }
    return value
  }
}

function callFunction(name: string, args: Value[], scope: ExpressionScope): Value {
  switch (name) {
    case 'always':
      return true
    // Nothing here is ever cancelled.
    case 'cancelled':
      return false
    case 'success':
      return (scope.status ?? 'success') === 'success'
    case 'failure':
      return scope.status === 'failure'
    case 'format':
      return asText(args[0] ?? '').replace(/\{(\d+)\}/g, (_, i: string) =>
        asText(args[Number(i) + 1] ?? ''),
      )
    case 'hashFiles':
      return hashFiles(args.map(asText), scope.workspace)
    case 'fromJSON':
      return fromJSON(asText(args[0] ?? null))
    case 'toJSON':
      return JSON.stringify(args[0] ?? null, null, 2)
    default:
      throw new Error(`Unsupported function '${name}()'`)
  }
}

/** GitHub's fromJSON(): JSON text to a value; anything else (an empty output, say) is an error. */
function fromJSON(text: string): Value {
  try {
    return JSON.parse(text) as Value
  } catch {
    throw new Error(`fromJSON(): '${text}' is not JSON`)
  }
}

/** Plain file names only (no globs): '' when none exists, as GitHub's hashFiles gives. */
function hashFiles(names: string[], workspace: string): string {
  if (names.some((name) => /[*?[]/.test(name))) throw new Error('hashFiles(): no globs here')
  const found = names.map((name) => join(workspace, name)).filter((file) => existsSync(file))
  if (found.length === 0) return ''
  const hash = createHash('sha256')
  for (const file of found) hash.update(readFileSync(file))
  return hash.digest('hex')
}

/** The value of one expression (the text inside `${{ }}`, or a bare `if:` condition). */
export function evaluate(expression: string, scope: ExpressionScope): Value {
  return new Parser(tokenize(expression), scope, expression).parse()
}

const TEMPLATE = /\$\{\{([\s\S]*?)\}\}/g

/** A string with `${{ … }}` parts: one whole expression keeps its type, otherwise text. */
export function interpolate(text: string, scope: ExpressionScope): Value {
  const whole = /^\$\{\{([\s\S]*?)\}\}$/.exec(text.trim())
  if (whole && !whole[1]?.includes('}}')) return evaluate(whole[1] ?? '', scope)
  return text.replace(TEMPLATE, (_, inner: string) => asText(evaluate(inner, scope)))
}

const STATUS_FUNCTION = /\b(?:success|failure|cancelled|always)\s*\(/

/**
 * An `if:` condition, written with or without `${{ }}`. As on GitHub, one that calls none of the
 * status functions (success(), failure(), cancelled(), always()) holds only after a success.
 */
export function condition(text: string | boolean | undefined, scope: ExpressionScope): boolean {
  const succeeded = (scope.status ?? 'success') === 'success'
  if (text === undefined) return succeeded
  if (typeof text === 'boolean') return succeeded && text
  const bare = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(text)?.[1] ?? text
  if (!STATUS_FUNCTION.test(bare) && !succeeded) return false
  return truthy(evaluate(bare, scope))
}
