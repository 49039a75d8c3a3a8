import { leakForms } from './secrets.js'

const MASK = '***'

/**
 * Replaces every registered secret, and its leak forms (see leakForms), with `***`. Longer
 * secrets are replaced first so that a secret containing another is masked whole.
 */
export class Redactor {
  private readonly secrets = new Set<string>()
  private ordered: string[] = []

  add(secret: string | undefined): void {
    if (!secret) return
    for (const form of leakForms(secret)) this.secrets.add(form)
    this.ordered = [...this.secrets].sort((a, b) => b.length - a.length)
  }

  redact(text: string): string {
    let out = text
    for (const secret of this.ordered) {
      if (out.includes(secret)) out = out.split(secret).join(MASK)
    }
    return out
  }

  get size(): number {
    return this.secrets.size
  }
}
