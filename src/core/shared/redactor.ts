import { isShortSecret, leakForms } from './secrets.js'
import { escapeRegExp } from './regexp.js'

const MASK = '***'

/**
 * Replaces every registered secret, and its leak forms (see leakForms), with `***`. Longer
 * forms are replaced first so that a secret containing another is masked whole. A short secret
 * (see MIN_SECRET_LENGTH) is masked only where it stands alone, not inside a longer word, so
 * that a three-letter password does not hide every word that holds those letters.
 */
export class Redactor {
  private readonly forms = new Map<string, Masker>()
  private ordered: Masker[] = []

  add(secret: string | undefined): void {
    if (!secret) return
    const alone = isShortSecret(secret)
    for (const form of leakForms(secret)) {
      if (this.forms.has(form) && !alone) this.forms.delete(form)
      if (!this.forms.has(form)) this.forms.set(form, alone ? standalone(form) : anywhere(form))
    }
    this.ordered = [...this.forms.entries()]
      .sort(([a], [b]) => b.length - a.length)
      .map(([, masker]) => masker)
  }

  redact(text: string): string {
    let out = text
    for (const mask of this.ordered) out = mask(out)
    return out
  }

  get size(): number {
    return this.forms.size
  }
}

type Masker = (text: string) => string

function anywhere(form: string): Masker {
  return (text) => (text.includes(form) ? text.split(form).join(MASK) : text)
}

/** Not preceded or followed by a letter, a digit, `_` or `-` (a longer word or identifier). */
function standalone(form: string): Masker {
  const escaped = escapeRegExp(form)
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_-])${escaped}(?![\\p{L}\\p{N}_-])`, 'gu')
  return (text) => (text.includes(form) ? text.replace(pattern, MASK) : text)
}
