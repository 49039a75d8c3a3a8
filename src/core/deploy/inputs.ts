import type { InputValues, ParseTools, RawInputs } from '../definition.js'
import { EXISTING_LOGIN, type RegistryLogin } from '../registry/credentials.js'
import { registryLogin } from '../registry/inputs.js'
import type { CiContext } from '../shared/context.js'
import { InputProblems, parseInputs } from '../shared/inputs.js'
import { isLoopbackHost } from '../shared/loopback.js'
import { deployDefinition, type DeployInputName } from './definition.js'
import { namedBackends } from './built-images.js'
import { acceptedRepositories } from './provenance.js'

/**
 * The deploy action's inputs, validated and typed (see deployDefinition), with the registry
 * login of `registry`, `registry-username` and `registry-password` taken together, and the
 * repositories `require-provenance` accepts (this run's, when it is true).
 */
export type DeployInputs = Omit<
  InputValues<typeof deployDefinition>,
  'registry' | 'registryUsername' | 'registryPassword'
> & { registryLogin?: RegistryLogin; provenanceRepositories?: string[] }

export function parseDeployInputs(
  raw: RawInputs<DeployInputName>,
  tools?: ParseTools,
  context: Partial<Pick<CiContext, 'registryPasswordFrom' | 'platform' | 'repositoryUrl'>> = {},
): DeployInputs {
  const { registry, registryUsername, registryPassword, ...inputs } = parseInputs(
    deployDefinition,
    raw,
    tools,
  )
  const problems = new InputProblems(deployDefinition, raw)
  // Without the inputs, the image check reads the logins of the Docker config.
  const login = registryLogin(registry, registryUsername, registryPassword, problems, {
    existing: EXISTING_LOGIN.docker,
    passwordFrom: context.registryPasswordFrom,
  })
  const insecure = insecureHttpProblem(inputs.webhookUrl, inputs.allowInsecureHttp)
  if (insecure) problems.add('webhook-url', insecure)
  if (inputs.verifySignatures && inputs.verifyImages === 'false')
    problems.add(
      'verify-images',
      "is false, but 'verify-signatures' is set, and the signatures are checked during the image check; set 'verify-images' to 'true' (or 'auto', which then acts as 'true'), or leave 'verify-signatures' empty",
    )
  if (inputs.verifySignatures && inputs.pinDigests === 'false')
    problems.add(
      'pin-digests',
      "is false, but 'verify-signatures' is set: a signature is checked for the digest the registry gave, and a tag sent as given may be moved to another, unsigned, image before the platform pulls it; set 'pin-digests' to 'auto' (or 'true'), which sends each image by that digest, or leave 'verify-signatures' empty",
    )
  if (inputs.pinDigests === 'true' && inputs.verifyImages === 'false')
    problems.add(
      'pin-digests',
      "is true, but 'verify-images' is false, and the digests to send come from the image check; set 'verify-images' to 'true' (or 'auto', which then acts as 'true'), or 'pin-digests' to 'auto' or 'false'",
    )
  for (const [input, problem] of builtImagesConflicts(inputs)) problems.add(input, problem)
  const provenanceRepositories = inputs.requireProvenance
    ? problems.take(
        'require-provenance',
        acceptedRepositories(inputs.requireProvenance, { platform: 'local', ...context }),
        [],
      )
    : undefined
  if (inputs.requireProvenance && !inputs.verifySignatures)
    problems.add(
      'require-provenance',
      "is set, but 'verify-signatures' is empty: a provenance proves where an image was built only under the key that signed it; give 'verify-signatures' the public key (cosign.pub) whose private key attests the images, or set 'require-provenance' to false",
    )
  problems.throwIfAny()
  return {
    ...inputs,
    registryLogin: login,
    ...(provenanceRepositories ? { provenanceRepositories } : {}),
  }
}

/**
 * `built-images` beside the inputs that give images too: one image per part, and without
 * `deploy-rules`, no backend image that no named backend's rule would deploy.
 */
function builtImagesConflicts(
  inputs: Pick<
    DeployInputs,
    'builtImages' | 'frontendImage' | 'codeasdataImage' | 'backendImages' | 'deployRules'
  >,
): Array<[DeployInputName, string]> {
  const built = inputs.builtImages
  if (!built) return []
  const conflicts: Array<[DeployInputName, string]> = []
  const twice = (part: string, image: string, input: DeployInputName, given: string): void => {
    conflicts.push([
      'built-images',
      `lists a ${part} image ('${image}'), and '${input}' gives one too ('${given}'); a deployment takes one: leave '${input}' empty to deploy the image build-images built, or leave it out of 'built-images'`,
    ])
  }
  if (built.frontend && inputs.frontendImage)
    twice('frontend', built.frontend, 'frontend-image', inputs.frontendImage)
  if (built.codeasdata && inputs.codeasdataImage)
    twice('code-as-data', built.codeasdata, 'codeasdata-image', inputs.codeasdataImage)
  const named = namedBackends(built)
  if (named.length === 0 || inputs.deployRules) return conflicts
  const unnamed = [
    ...built.backends.flatMap((backend) => (backend.name ? [] : [backend.reference])),
    ...inputs.backendImages,
  ]
  if (unnamed.length > 0)
    conflicts.push([
      'built-images',
      `names backends (${named.map((backend) => `'${backend.name}'`).join(', ')}), and backend images have no name (${unnamed.map((image) => `'${image}'`).join(', ')}, from ${sources(unnamed.length > inputs.backendImages.length, inputs.backendImages.length > 0)}): without 'deploy-rules', each named backend gets a rule for its own image only, and no rule would deploy those; give 'deploy-rules' for them all, or build every backend with a name (build-images' 'backends')`,
    ])
  return conflicts
}

function sources(fromBuilt: boolean, fromInput: boolean): string {
  if (fromBuilt && fromInput) return "'built-images' and 'backend-images'"
  return fromInput ? "'backend-images'" : "'built-images'"
}

/** Plain http would carry the bearer token in clear, except on this machine's loopback. */
function insecureHttpProblem(url: URL, allowed: boolean): string | undefined {
  if (url.protocol === 'https:' || allowed || isLoopbackHost(url.hostname)) return undefined
  return "plain http:// is refused because the token would travel in clear; use https://, or set 'allow-insecure-http: true' if the network is trusted"
}
