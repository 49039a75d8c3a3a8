import * as v from 'valibot'
import type { RawInputs } from '../definition.js'
import { errorMessage } from '../shared/errors.js'
import { IMAGE_REFERENCE_EXPECTED, parseImageReference } from '../shared/image-ref.js'
import { describeInputProblem, parseInputs, refine } from '../shared/inputs.js'
import { describeIssues } from '../shared/issues.js'
import {
  booleanInput,
  choiceInput,
  integerInput,
  optionalText,
  parseList,
} from '../shared/parse.js'
import { InputError } from '../shared/errors.js'
import { deployDefinition, type DeployInputName } from './definition.js'
import {
  DeployRuleSchema,
  MODES,
  RULES_WORDING,
  type DeployRule,
  type Mode,
} from './payload-schema.js'
import { isLoopbackHost } from '../shared/loopback.js'
import { registryInput, registryLogin, verifyImagesInput } from './registry-inputs.js'
import type { RegistryLogin } from '../registry/logins.js'
import type { VerifyMode } from './verify-images.js'

/** The deploy action's inputs, validated and typed. */
export interface DeployInputs {
  webhookUrl: URL
  webhookToken: string
  frontendImage?: string
  backendImages: string[]
  codeasdataImage?: string
  /** Issue 12: check that the images exist before calling the webhook. */
  verifyImages: VerifyMode
  registryLogin?: RegistryLogin
  /** Undefined: keep the base payload's rules, or the spec's default `.*` to `.*`. */
  deployRules?: DeployRule[]
  codeasdataUpdateMode?: Mode
  promotionMode?: Mode
  skipUpdateVersions: boolean
  forceSync: boolean
  payloadFile?: string
  timeoutSeconds: number
  dryRun: boolean
  allowInsecureHttp: boolean
}

const webhookUrl = refine((raw) => {
  if (raw === '')
    return {
      problem: 'is required: set it from the secret the platform operator gave you (WEBHOOK_URL)',
    }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { problem: 'expected an absolute https:// URL' }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { problem: 'expected an https:// URL' }
  return url
})

const imageReference = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  const parsed = parseImageReference(raw)
  return typeof parsed === 'string' ? { problem: `${parsed}; ${IMAGE_REFERENCE_EXPECTED}` } : raw
})

const imageReferenceList = refine((raw) => {
  const images = parseList(raw)
  for (const image of images) {
    const parsed = parseImageReference(image)
    if (typeof parsed === 'string')
      return { problem: `'${image}' ${parsed}; ${IMAGE_REFERENCE_EXPECTED}` }
  }
  return images
})

/** YAML is a superset of JSON; the YAML parser is injected so that JSON users never load it. */
export type ParseYaml = (text: string) => unknown

function deployRules(parseYaml: ParseYaml): v.GenericSchema<string, DeployRule[] | undefined> {
  return refine((raw) => (raw === '' ? undefined : parseDeployRules(raw, parseYaml)))
}

export function parseDeployRules(
  raw: string,
  parseYaml: ParseYaml,
): DeployRule[] | { problem: string } {
  let document: unknown
  try {
    document = parseYaml(raw)
  } catch (error) {
    return { problem: `is neither JSON nor YAML (${errorMessage(error).split('\n')[0]})` }
  }
  if (!Array.isArray(document))
    return {
      problem: `expected a list of {source, target} rules, such as '[{"source": ".*", "target": ".*"}]'`,
    }
  const result = v.safeParse(v.array(DeployRuleSchema), document)
  if (!result.success) return { problem: describeIssues(result.issues, RULES_WORDING).join('; ') }
  return result.output
}

/**
 * The token travels in an HTTP header, which can carry neither a line break nor a character
 * beyond Latin-1: Node would refuse the request half-way, or a proxy split the header.
 */
const webhookToken = v.pipe(
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

/** Before the registry login, which needs the raw inputs for its message. */
type ParsedInputs = Omit<DeployInputs, 'registryLogin'> & { registry?: string }

const deployInputsSchema = (
  parseYaml: ParseYaml,
): v.GenericSchema<RawInputs<DeployInputName>, ParsedInputs> =>
  v.pipe(
    v.object({
      'webhook-url': webhookUrl,
      'webhook-token': webhookToken,
      'frontend-image': imageReference,
      'backend-images': imageReferenceList,
      'codeasdata-image': imageReference,
      'verify-images': verifyImagesInput,
      registry: registryInput,
      // Both or neither: checked with the raw values in parseDeployInputs (registryLogin).
      'registry-username': v.string(),
      'registry-password': v.string(),
      'deploy-rules': deployRules(parseYaml),
      'codeasdata-update-mode': choiceInput(MODES),
      'promotion-mode': choiceInput(MODES),
      'skip-update-versions': booleanInput,
      'force-sync': booleanInput,
      'payload-file': optionalText,
      'timeout-seconds': integerInput(1, 3600),
      'dry-run': booleanInput,
      'allow-insecure-http': booleanInput,
    }),
    v.transform((i): ParsedInputs => ({
      webhookUrl: i['webhook-url'],
      webhookToken: i['webhook-token'],
      frontendImage: i['frontend-image'],
      backendImages: i['backend-images'],
      codeasdataImage: i['codeasdata-image'],
      verifyImages: i['verify-images'],
      registry: i.registry,
      deployRules: i['deploy-rules'],
      codeasdataUpdateMode: i['codeasdata-update-mode'],
      promotionMode: i['promotion-mode'],
      skipUpdateVersions: i['skip-update-versions'],
      forceSync: i['force-sync'],
      payloadFile: i['payload-file'],
      timeoutSeconds: i['timeout-seconds'],
      dryRun: i['dry-run'],
      allowInsecureHttp: i['allow-insecure-http'],
    })),
  )

export function parseDeployInputs(
  raw: RawInputs<DeployInputName>,
  parseYaml: ParseYaml = JSON.parse,
): DeployInputs {
  const { registry, ...parsed } = parseInputs(deployDefinition, deployInputsSchema(parseYaml), raw)
  const inputs: DeployInputs = { ...parsed, registryLogin: registryLogin(raw, registry) }
  const insecure = insecureHttpProblem(inputs.webhookUrl, inputs.allowInsecureHttp)
  if (insecure) {
    throw new InputError(
      'webhook-url',
      describeInputProblem(deployDefinition, raw, 'webhook-url', insecure),
    )
  }
  return inputs
}

/** Plain http would carry the bearer token in clear, except on this machine's loopback. */
function insecureHttpProblem(url: URL, allowed: boolean): string | undefined {
  if (url.protocol === 'https:' || allowed || isLoopbackHost(url.hostname)) return undefined
  return "plain http:// is refused because the token would travel in clear; use https://, or set 'allow-insecure-http: true' if the network is trusted"
}
