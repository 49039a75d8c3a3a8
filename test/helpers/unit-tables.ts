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

/** What a build command line says of one build, as both builders write it. */
export interface BuildOptions {
  readonly file: string
  /** `NAME=value`, SOURCES_PATH first as the builders put it. */
  readonly buildArgs: readonly string[]
  readonly labels?: readonly string[]
  readonly tags: readonly string[]
}

/**
 * The expected `--file`, `--build-arg`, `--label` and `--tag` options of a build command line, in
 * the order Docker's and Buildah's command-line builders both give them.
 */
export function buildOptions(options: BuildOptions): string[] {
  const each = (flag: string, values: readonly string[] = []): string[] =>
    values.flatMap((value) => [flag, value])
  return [
    '--file',
    options.file,
    ...each('--build-arg', options.buildArgs),
    ...each('--label', options.labels),
    ...each('--tag', options.tags),
  ]
}
