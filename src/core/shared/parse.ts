import * as v from 'valibot'

/** Splits a list input written one item per line or comma-separated; blank items are dropped. */
export function parseList(raw: string): string[] {
  return raw
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
}

export const BOOLEAN_EXPECTED = "expected 'true' or 'false'"

/** Booleans as GitHub users type them: true/false in any case. */
export const booleanInput = v.pipe(
  v.string(),
  v.check((raw) => /^(true|false)$/i.test(raw), BOOLEAN_EXPECTED),
  v.transform((raw) => raw.toLowerCase() === 'true'),
)

export function integerInput(min: number, max: number): v.GenericSchema<string, number> {
  return v.pipe(
    v.string(),
    v.check(
      (raw) => /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max,
      `expected a whole number from ${min} to ${max}`,
    ),
    v.transform(Number),
  )
}

/** An optional text input: '' becomes undefined. */
export const optionalText = v.pipe(
  v.string(),
  v.transform((raw) => (raw === '' ? undefined : raw)),
)

export function choiceInput<const T extends readonly string[]>(
  options: T,
): v.GenericSchema<string, T[number] | undefined> {
  return v.pipe(
    v.string(),
    v.check(
      (raw) => raw === '' || options.includes(raw),
      `expected one of ${options.map((o) => `'${o}'`).join(', ')}`,
    ),
    v.transform((raw) => (raw === '' ? undefined : (raw as T[number]))),
  )
}
