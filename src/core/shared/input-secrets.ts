import * as v from 'valibot'
import { inputNames, type ActionDefinition, type InputSpec, type RawInputs } from '../definition.js'
import { unique } from './collections.js'
import { JSON_ONLY, schemaOf } from './inputs.js'
import { embeddedPasswords } from './secrets.js'
import { credentialsInText } from './url-credentials.js'

/**
 * Every value to mask for an action's inputs, read from each input's own specification (see
 * InputSpec.secret): the secret parts its parser's value holds, or, when the parser refuses the
 * text, what looks secret in it. Any input may also have credentials written into it by mistake
 * (`https://ci:<password>@…`, `ci:<password>@ghcr.io`): they are masked wherever they are. The
 * one place the platform asks, before the first line of the log.
 */
export function inputSecrets<I extends string>(
  definition: ActionDefinition<I>,
  raw: Partial<RawInputs<I>>,
): string[] {
  const names = inputNames(definition)
  const texts = Object.fromEntries(names.map((name) => [name, raw[name] ?? '']))
  return unique(
    names.flatMap((name) => secretsIn(definition.inputs[name], texts[name] ?? '', texts)),
  )
}

/** What of one input's text is secret (see inputSecrets); [] when nothing is. */
export function secretsIn(
  spec: InputSpec,
  text: string,
  inputs: Readonly<Record<string, string>>,
): string[] {
  if (text === '') return []
  const written = [...credentialsInText(text), ...embeddedPasswords(text)]
  const { secret } = spec
  if (secret === undefined) return unique(written)
  if (secret === true) return unique([text, ...written])
  const parsed = v.safeParse(schemaOf(spec.parse, JSON_ONLY), text)
  const parts = parsed.success
    ? secret.parts(parsed.output, text, inputs)
    : secret.unparsed(text, inputs)
  const whole = secret.whole === true ? [text] : []
  return unique([...whole, ...parts, ...written].filter((part) => part !== ''))
}
