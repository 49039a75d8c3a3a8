import { expect } from '@jest/globals'

/** The forms a secret takes when it leaks: as is, URL-encoded, base64 (basic auth, headers). */
export function leakForms(secret: string): string[] {
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    Buffer.from(secret).toString('base64'),
  ])
  return [...forms].filter((form) => form.length >= 4)
}

/**
 * `::add-mask::<value>` is the one line allowed to hold a secret: the runner consumes it and
 * never shows it. Everything else a user, a log or an artifact could see must be clean.
 */
export function visibleText(captured: string): string {
  return captured
    .split(/\r?\n/)
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n')
}

export function expectNoSecrets(
  captured: Record<string, string>,
  secrets: readonly string[],
): void {
  const leaks: string[] = []
  for (const [where, text] of Object.entries(captured)) {
    const visible = visibleText(text)
    for (const secret of secrets) {
      for (const form of leakForms(secret)) {
        if (visible.includes(form))
          leaks.push(`${where} holds a form of secret '${secret.slice(0, 3)}…'`)
      }
    }
  }
  expect(leaks).toEqual([])
}
