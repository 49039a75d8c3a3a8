import { describe, expect, test } from '@jest/globals'
import type { Prepared } from '../../../../src/core/build-images/reuse/fingerprint-inputs.js'
import { loginFromInputs } from '../../../../src/core/registry/credentials.js'
import { parseJsonText } from '../../../../src/core/shared/json-text.js'
import { isProblem, type Problem } from '../../../../src/core/shared/problem.js'

describe('isProblem', () => {
  test('tells the problem of a result from its value, whatever the value is', () => {
    const values: Array<string | number | boolean | null | undefined | object> = [
      'text',
      '',
      0,
      false,
      null,
      undefined,
      [],
      ['problem'],
      {},
      { value: 1 },
      new Map([['problem', 'x']]),
    ]
    for (const value of values) expect(isProblem(value)).toBe(false)
    expect(isProblem({ problem: 'is empty; expected a host name' })).toBe(true)
  })

  test('narrows the result: the problem on one side, the value on the other', () => {
    const result = parseJsonText('[1')
    if (!isProblem(result)) throw new Error('expected a problem')
    expect(result.problem).toBe('not valid JSON: it ends too early (after line 1)')
    const parsed = parseJsonText('["a"]')
    if (isProblem(parsed)) throw new Error('expected the value')
    const value: { value: unknown } = parsed
    expect(value).toEqual({ value: ['a'] })
  })

  test("a value whose content has a 'problem' field is not a problem", () => {
    const parsed = parseJsonText('{"problem": "not mine"}')
    expect(isProblem(parsed)).toBe(false)
    expect(parsed).toEqual({ value: { problem: 'not mine' } })
  })

  test('a problem that names its input is a problem, and keeps its input', () => {
    const login = loginFromInputs('robot', undefined)
    if (!login || !isProblem(login)) throw new Error('expected a problem')
    expect(login.input).toBe('registry-password')
    expect(login.problem).toBe(
      "is empty while 'registry-username' is set; give both, or neither to use the job's existing Docker login",
    )
  })

  test("a value type whose own 'problem' field is not a Problem's is refused at compile time", () => {
    // A plan that carries why it cannot be fingerprinted, when it cannot: it is a value (every plan
    // goes on), and it would read as a problem at run time exactly when it has one.
    const prepared = { plan: {}, problem: 'its .dockerignore could not be read' } as Prepared
    // @ts-expect-error -- `problem?: string`: a Prepared is no Problem, and must not be asked
    expect(isProblem(prepared)).toBe(true)
    const counted = { problem: 3 } as { problem: number } | Problem
    // @ts-expect-error -- `problem: number` is no Problem's field
    expect(isProblem(counted)).toBe(false)
  })

  test("an object whose 'problem' is a string is a Problem to the compiler as at run time", () => {
    const result = { problem: 'no answer', tries: 3 } as { problem: string; tries: number } | string
    if (!isProblem(result)) {
      // The value's side holds the string alone: the object cannot be used as a value.
      const text: string = result
      throw new Error(`expected a problem, got ${text}`)
    }
    expect(result.tries).toBe(3)
  })

  test("values read from JSON (typed any) are told apart by the field's type at run time", () => {
    const read = (text: string): unknown => JSON.parse(text)
    for (const text of ['{"problem": 42}', '{"problem": null}', '{"problem": {}}', '{}'])
      expect(isProblem(read(text) as object)).toBe(false)
    expect(isProblem(read('{"problem": "said so"}') as object)).toBe(true)
  })
})
