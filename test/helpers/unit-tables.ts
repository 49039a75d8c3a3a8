import { expect, test } from '@jest/globals'

/**
 * One test per row for a pure function: `answer(input)` equals the row's expected value. The
 * title takes the row as `test.each` does (`%s`, `%j`: the input, then the expected value).
 */
export function eachAnswer<I, O>(
  title: string,
  answer: (input: I) => O,
  rows: readonly (readonly [I, O])[],
): void {
  test.each(rows.map((row): [I, O] => [row[0], row[1]]))(title, (input, expected) => {
    expect(answer(input)).toEqual(expected)
  })
}
