import type { ActionDefinition, RawInputs } from '../definition.js'
import { unique } from './collections.js'

/**
 * Every value to mask for an action's inputs: each secret input as given, and the values the
 * action derives from its inputs that can leak on their own (a token inside a URL, the
 * base64 credentials a `docker login` writes). The one place the platform asks.
 */
export function actionSecrets<I extends string>(
  definition: ActionDefinition<I>,
  raw: Partial<RawInputs<I>>,
  derived: readonly string[] = [],
): string[] {
  const given = (Object.keys(definition.inputs) as I[])
    .filter((name) => definition.inputs[name].secret === true)
    .map((name) => raw[name] ?? '')
  return unique([...given, ...derived].filter((secret) => secret !== ''))
}

/** The forms in which a secret commonly leaks besides itself: trimmed, and URL-encoded. */
export function leakForms(secret: string): string[] {
  return unique([secret, secret.trim(), encodeURIComponent(secret)]).filter((form) => form !== '')
}
