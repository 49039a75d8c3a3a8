import { isVersionText } from '../shared/image-labels.js'
import * as v from 'valibot'
import type { InputSchema, ParseTools } from '../definition.js'
import { IMAGE_REFERENCE_EXPECTED, parseImageReference } from '../shared/image-ref.js'
import { jsonOrYamlInput, parseJsonOrYaml, parseList, refine } from '../shared/inputs.js'
import { describeIssues } from '../shared/issues.js'
import { isProblem, type Problem } from '../shared/problem.js'
import { parseAppUrl, PREVIEW_WORDS, type AppTarget } from './app-url.js'
import { parseCredentialUrl, userAndPassword } from '../shared/url-credentials.js'
import { DeployRuleSchema, RULES_WORDING, type DeployRule } from './payload-schema.js'
import { parseProvenanceRule, type ProvenanceRule } from './provenance.js'
import { parseKeySource, type KeySource } from './signature-key.js'

/** The deploy inputs that need a rule of their own, each from its text to its value. */

export const webhookUrl = refine((raw) => {
  if (raw === '')
    return {
      problem: 'is required: set it from the secret the platform operator gave you (WEBHOOK_URL)',
    }
  const parsed = parseCredentialUrl(raw)
  if (parsed === undefined) return { problem: 'expected an absolute https:// URL' }
  if (isProblem(parsed)) return parsed
  const { url, credentials } = parsed
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { problem: 'expected an https:// URL' }
  // Kept on the address, as written: their parts are masked (see webhookUrlSecrets).
  if (credentials) {
    const { user, password } = userAndPassword(credentials.userInfo)
    url.username = user
    url.password = password
  }
  return url
})

/**
 * The token travels in an HTTP header, which can carry neither a line break nor a character
 * beyond Latin-1: Node would refuse the request half-way, or a proxy split the header.
 */
export const webhookToken = v.pipe(
  v.string(),
  v.check(
    (raw) => raw !== '',
    'is required: set it from the secret the platform operator gave you (WEBHOOK_TOKEN)',
  ),
  v.check(
    (raw) => !/[\r\n]/.test(raw),
    'contains a line break, which an HTTP header cannot carry; copy the token again as one line (a secret stored from a file often ends with one)',
  ),
  v.check(
    // What Node accepts in a header value: tab, visible ASCII, space, and Latin-1 (0x80-0xFF).
    (raw) => !/[^\t\x20-\x7e\x80-\xff]/.test(raw),
    'contains a control character or a character beyond Latin-1 (such as an emoji or a curly quote), which an HTTP header cannot carry; copy the token again from the platform operator',
  ),
)

export const appUrl = refine<AppTarget | undefined>((raw) =>
  raw === '' ? undefined : parseAppUrl(raw),
)

export const previewUrl = refine<AppTarget | undefined>((raw) =>
  raw === '' ? undefined : parseAppUrl(raw, PREVIEW_WORDS),
)

/** What version.json holds and the log prints: visible ASCII, as the watch reads it. */
export const expectedVersion = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (!isVersionText(raw))
    return {
      problem:
        "expected a version as the app's version.json holds it, such as '1.4.0' (visible ASCII characters, no spaces, at most 128)",
    }
  return raw
})

export const imageReference = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  const parsed = parseImageReference(raw)
  return typeof parsed === 'string' ? { problem: `${parsed}; ${IMAGE_REFERENCE_EXPECTED}` } : raw
})

export const imageReferenceList = refine((raw) => {
  const images = parseList(raw)
  for (const image of images) {
    const parsed = parseImageReference(image)
    if (typeof parsed === 'string')
      return { problem: `'${image}' ${parsed}; ${IMAGE_REFERENCE_EXPECTED}` }
  }
  return images
})

export function parseDeployRules(
  raw: string,
  parseYaml: ParseTools['parseYaml'],
): DeployRule[] | Problem {
  const parsed = parseJsonOrYaml(raw, parseYaml)
  if (isProblem(parsed)) return parsed
  const { document } = parsed
  if (!Array.isArray(document))
    return {
      problem: `expected a list of {source, target} rules, such as '[{"source": ".*", "target": ".*"}]'`,
    }
  const result = v.safeParse(v.array(DeployRuleSchema), document)
  if (!result.success) return { problem: describeIssues(result.issues, RULES_WORDING).join('; ') }
  return result.output
}

/** The public key of `verify-signatures`: its PEM text, or the path of its file (read later). */
export const verifySignatures = refine<KeySource | undefined>(parseKeySource)

/** `require-provenance`: false, true (this repository), or the repositories accepted. */
export const requireProvenance = refine<ProvenanceRule>(parseProvenanceRule)

/** `deploy-rules`, in JSON or YAML. */
export const deployRules: (tools: ParseTools) => InputSchema<DeployRule[] | undefined> =
  jsonOrYamlInput(parseDeployRules)
